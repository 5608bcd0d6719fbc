/**
 * What the subscription routes ask, free of Nest: make a subscription (a webhook's secret, or a
 * NATS subscriber's credentials, shown once), list, show, remove it, rotate a webhook's secret
 * with an overlap in which both secrets sign, or issue a NATS subscriber new credentials.
 */
import { ADMIN_STATES, DomainError, PROJECT_STATES } from '@careen/contracts';
import { randomBytes, randomUUID } from 'node:crypto';
import { guidelineState } from '../delivery/event-names';
import { type CreateSubscriptionDto } from './dto/create-subscription.dto';
import { type NatsAccess, natsEndpoint, type NatsEndpoint } from './nats-access';
import { type ProjectOwners } from './project-owners';
import { isLive, type Subscription } from './subscription';
import { type SubscriptionStore } from './subscription-store';
import { type WebhookTargets } from './webhook-target';

export interface SubscriptionView {
  id: string;
  org: string;
  scope: Subscription['scope'];
  project_id: string | null;
  hosts: string[];
  states: string[];
  kind: Subscription['kind'];
  url: string | null;
  format: Subscription['format'];
  event_names: Subscription['eventNames'];
  created_by: string;
  created_at: string;
  /** `webhook`: when the secrets that still sign expire (null: the current one). */
  secrets: { expires_at: string | null }[];
  /** `nats`: where the subscriber reads and replies, and when its credentials expire. */
  nats?: NatsEndpoint & { user: string | null; credentials_expire_at: string | null };
}

/** What is shown once: a webhook's signing secret, or a NATS subscriber's creds file. */
export type SubscriptionWithSecret = SubscriptionView & { secret?: string; credentials?: string };

export const subscriptionNotFound = (id: string) =>
  new DomainError('not-found', 'notifier.subscription-not-found', `no subscription "${id}"`, { id });

const invalid = (problems: string[]) =>
  new DomainError('invalid', 'notifier.invalid-subscription', problems.join('; '), { problems });

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function viewOf(subscription: Subscription): SubscriptionView {
  return {
    id: subscription.id,
    org: subscription.org,
    scope: subscription.scope,
    project_id: subscription.project,
    hosts: subscription.hosts,
    states: subscription.states,
    kind: subscription.kind,
    url: subscription.url,
    format: subscription.format,
    event_names: subscription.eventNames,
    created_by: subscription.createdBy,
    created_at: new Date(subscription.createdAt).toISOString(),
    secrets: subscription.secrets.map((each) => ({ expires_at: each.expiresAt })),
    ...(subscription.kind === 'nats' &&
      subscription.project && {
        nats: {
          ...natsEndpoint(subscription.id, subscription.project),
          user: subscription.natsUser,
          credentials_expire_at: subscription.credentialsExpireAt
            ? new Date(subscription.credentialsExpireAt).toISOString()
            : null,
        },
      }),
  };
}

/** 409 for a subscription of another kind than the one that has `what`. */
const wrongKind = (subscription: Subscription, kind: Subscription['kind'], what: string, code: string) =>
  new DomainError(
    'conflict',
    code,
    `subscription "${subscription.id}" is of kind ${subscription.kind}: only ${kind} subscriptions have ${what}`,
    { id: subscription.id, kind: subscription.kind },
  );

export class Subscriptions {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly targets: WebhookTargets,
    private readonly owners: ProjectOwners,
    private readonly nats: NatsAccess,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(
    org: string,
    createdBy: string,
    request: CreateSubscriptionDto,
  ): Promise<SubscriptionWithSecret> {
    const problems = await this.problems(org, request);
    if (problems.length > 0) throw invalid(problems);
    const webhook = request.kind === 'webhook';
    const secret = webhook ? newSecret() : undefined;
    const subscription: Subscription = {
      id: randomUUID(),
      org,
      scope: request.scope,
      project: request.project_id ?? null,
      hosts: [...new Set(request.hosts ?? [])],
      states: [...new Set((request.states ?? []).map(guidelineState))],
      kind: request.kind,
      url: request.url ?? null,
      format: request.format ?? null,
      eventNames: request.event_names ?? 'guideline',
      secrets: secret ? [{ secret, expiresAt: null }] : [],
      natsUser: null,
      credentialsExpireAt: null,
      createdBy,
      createdAt: this.clock(),
    };
    const grant =
      request.kind === 'nats' ? await this.nats.open(subscription.id, subscription.project!) : undefined;
    if (grant) Object.assign(subscription, { natsUser: grant.user, credentialsExpireAt: grant.expiresAt });
    try {
      await this.store.insert(subscription);
    } catch (error) {
      if (grant) await this.nats.close(subscription.id);
      throw error;
    }
    return { ...viewOf(subscription), secret, credentials: grant?.credentials };
  }

  /** Every problem with `request`, at once. */
  private async problems(org: string, request: CreateSubscriptionDto): Promise<string[]> {
    const problems: string[] = [];
    if (request.scope === 'project' && !request.project_id)
      problems.push('project_id: the project scope names a project');
    if (request.scope !== 'project' && request.project_id !== undefined)
      problems.push(`project_id: only the project scope names a project (this is ${request.scope})`);
    if (request.scope !== 'admin' && request.hosts !== undefined)
      problems.push('hosts: only the admin scope names hosts');
    const allowed: readonly string[] = request.scope === 'admin' ? ADMIN_STATES : PROJECT_STATES;
    const foreign = (request.states ?? []).filter((state) => !allowed.includes(guidelineState(state)));
    if (foreign.length > 0)
      problems.push(
        `states: ${foreign.join(', ')} ${foreign.length > 1 ? 'are' : 'is'} not a state of ${request.scope} events (${allowed.join(', ')})`,
      );
    if (request.kind === 'webhook') {
      if (request.url === undefined) problems.push('url: a webhook subscription names its URL');
      if (request.format === undefined) problems.push('format: a webhook subscription names its format');
      const target = request.url === undefined ? undefined : await this.targets.problem(request.url);
      if (target) problems.push(target);
    } else {
      if (request.scope !== 'project')
        problems.push(`scope: a ${request.kind} subscription takes one project's events (scope project)`);
      for (const field of ['url', 'format', 'event_names'] as const)
        if (request[field] !== undefined) problems.push(`${field}: only webhook subscriptions have one`);
      if (request.kind === 'nats' && this.nats.unavailable) problems.push(this.nats.unavailable);
    }
    if (
      request.scope === 'project' &&
      request.project_id &&
      (await this.owners.ofAnotherOrg(org, request.project_id))
    )
      problems.push(`project_id: project "${request.project_id}" is another org's`);
    return problems;
  }

  async get(id: string): Promise<Subscription> {
    const subscription = await this.store.get(id);
    if (!subscription) throw subscriptionNotFound(id);
    return subscription;
  }

  async list(org: string): Promise<SubscriptionView[]> {
    return (await this.store.list(org)).map(viewOf);
  }

  async remove(subscription: Subscription): Promise<void> {
    const { id } = subscription;
    if (subscription.kind === 'nats') await this.nats.close(id);
    if (!(await this.store.remove(subscription))) throw subscriptionNotFound(id);
  }

  /** A NATS subscriber's new credentials, shown once; those issued before last until they expire. */
  async reissueCredentials(subscription: Subscription): Promise<SubscriptionWithSecret> {
    if (subscription.kind !== 'nats')
      throw wrongKind(subscription, 'nats', 'credentials', 'notifier.no-credentials');
    const { id } = subscription;
    const grant = await this.nats.issue(id, subscription.project!);
    await this.store.setNatsUser(subscription, grant.user, grant.expiresAt);
    const renewed = { ...subscription, natsUser: grant.user, credentialsExpireAt: grant.expiresAt };
    return { ...viewOf(renewed), credentials: grant.credentials };
  }

  /** A new secret, shown once; the current one keeps signing for `overlapSeconds`. */
  async rotateSecret(subscription: Subscription, overlapSeconds: number): Promise<SubscriptionWithSecret> {
    if (subscription.kind !== 'webhook')
      throw wrongKind(subscription, 'webhook', 'a signing secret', 'notifier.no-secret');
    const now = this.clock();
    const until = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
    // The secrets that sign now keep signing until the overlap ends (sooner, if they were to).
    const kept =
      overlapSeconds === 0
        ? []
        : subscription.secrets
            .filter((each) => isLive(each, now))
            .map((each) => ({
              secret: each.secret,
              expiresAt: each.expiresAt !== null && each.expiresAt < until ? each.expiresAt : until,
            }));
    const secret = newSecret();
    const secrets = [...kept, { secret, expiresAt: null }];
    await this.store.setSecrets(subscription, secrets);
    return { ...viewOf({ ...subscription, secrets }), secret };
  }
}
