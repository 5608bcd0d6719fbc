/** A subscription to maintenance events, as stored. */
export const SUBSCRIPTION_SCOPES = ['project', 'all-projects', 'admin'] as const;
export type SubscriptionScope = (typeof SUBSCRIPTION_SCOPES)[number];

export const SUBSCRIPTION_KINDS = ['webhook'] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

export const WEBHOOK_FORMATS = ['cloudevents', 'aodh'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** A signing secret; an old one is kept, and signed with, until it expires. */
export interface SigningSecret {
  secret: string;
  expiresAt: string | null;
}

export interface Subscription {
  id: string;
  org: string;
  scope: SubscriptionScope;
  /** `project` scope: the project. */
  project: string | null;
  /** `admin` scope: the hosts; empty for every host of the org. */
  hosts: string[];
  /** The event states delivered; empty for all. */
  states: string[];
  kind: SubscriptionKind;
  url: string;
  format: WebhookFormat;
  secrets: SigningSecret[];
  createdBy: string;
  createdAt: Date;
}

/** The secrets that still sign deliveries at `now`. */
export function liveSecrets(subscription: Pick<Subscription, 'secrets'>, now: Date): string[] {
  return subscription.secrets
    .filter((each) => each.expiresAt === null || Date.parse(each.expiresAt) > now.getTime())
    .map((each) => each.secret);
}
