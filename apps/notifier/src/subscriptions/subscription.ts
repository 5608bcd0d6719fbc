/** A subscription to maintenance events, as stored. */
export const SUBSCRIPTION_SCOPES = ['project', 'all-projects', 'admin'] as const;
export type SubscriptionScope = (typeof SUBSCRIPTION_SCOPES)[number];

/**
 * `webhook`: the notifier posts each event; `nats`: the subscriber reads its project's events
 * from its own durable consumer with credentials the notifier issues; `sse`: the subscriber
 * follows `GET /v1/stream`. All three count as a subscriber of the project.
 */
export const SUBSCRIPTION_KINDS = ['webhook', 'nats', 'sse'] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

export const WEBHOOK_FORMATS = ['cloudevents', 'aodh'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The names a webhook's events carry: the Doctor guideline's, or Fenix's (`SCALE_IN`). */
export const EVENT_NAMES = ['guideline', 'fenix'] as const;
export type EventNames = (typeof EVENT_NAMES)[number];

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
  /** `webhook` kind: where and in which format events are posted, and the signing secrets. */
  url: string | null;
  format: WebhookFormat | null;
  eventNames: EventNames;
  secrets: SigningSecret[];
  /** `nats` kind: the subscriber's NATS user (a public key) and when its credentials expire. */
  natsUser: string | null;
  credentialsExpireAt: Date | null;
  createdBy: string;
  createdAt: Date;
}

/** Whether the secret still signs deliveries at `now`. */
export function isLive(secret: SigningSecret, now: Date): boolean {
  return secret.expiresAt === null || Date.parse(secret.expiresAt) > now.getTime();
}

/** The secrets that still sign deliveries at `now`. */
export function liveSecrets(subscription: Pick<Subscription, 'secrets'>, now: Date): string[] {
  return subscription.secrets.filter((each) => isLive(each, now)).map((each) => each.secret);
}

/** Whether a webhook subscription of `org` wants the project event. */
export function wantsProjectEvent(subscription: Subscription, org: string, project: string, state: string) {
  return (
    subscription.org === org &&
    (subscription.scope === 'all-projects' ||
      (subscription.scope === 'project' && subscription.project === project)) &&
    (subscription.states.length === 0 || subscription.states.includes(state))
  );
}

/** Whether a webhook subscription of `org` wants the admin event about `host`. */
export function wantsAdminEvent(subscription: Subscription, org: string, host: string, state: string) {
  return (
    subscription.org === org &&
    subscription.scope === 'admin' &&
    (subscription.hosts.length === 0 || subscription.hosts.includes(host)) &&
    (subscription.states.length === 0 || subscription.states.includes(state))
  );
}
