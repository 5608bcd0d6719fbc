/**
 * What the subscription routes ask, free of Nest: make a subscription (its secret shown once),
 * list, show, remove it, rotate its secret with an overlap in which both secrets sign.
 */
import { ADMIN_STATES, DomainError, PROJECT_STATES } from '@careen/contracts';
import { randomBytes, randomUUID } from 'node:crypto';
import { type CreateSubscriptionDto } from './dto/create-subscription.dto';
import { type Subscription } from './subscription';
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
  url: string;
  format: Subscription['format'];
  created_by: string;
  created_at: string;
  /** When the secrets that still sign expire (null: the current one). */
  secrets: { expires_at: string | null }[];
}

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
    created_by: subscription.createdBy,
    created_at: new Date(subscription.createdAt).toISOString(),
    secrets: subscription.secrets.map((each) => ({ expires_at: each.expiresAt })),
  };
}

export class Subscriptions {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly targets: WebhookTargets,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(
    org: string,
    createdBy: string,
    request: CreateSubscriptionDto,
  ): Promise<SubscriptionView & { secret: string }> {
    const problems: string[] = [];
    if (request.scope === 'project' && !request.project_id)
      problems.push('project_id: the project scope names a project');
    if (request.scope !== 'project' && request.project_id !== undefined)
      problems.push(`project_id: only the project scope names a project (this is ${request.scope})`);
    if (request.scope !== 'admin' && request.hosts !== undefined)
      problems.push('hosts: only the admin scope names hosts');
    const allowed: readonly string[] = request.scope === 'admin' ? ADMIN_STATES : PROJECT_STATES;
    const foreign = (request.states ?? []).filter((state) => !allowed.includes(state));
    if (foreign.length > 0)
      problems.push(
        `states: ${foreign.join(', ')} ${foreign.length > 1 ? 'are' : 'is'} not a state of ${request.scope} events (${allowed.join(', ')})`,
      );
    const target = await this.targets.problem(request.url);
    if (target) problems.push(target);
    if (problems.length > 0) throw invalid(problems);
    const secret = newSecret();
    const subscription: Subscription = {
      id: randomUUID(),
      org,
      scope: request.scope,
      project: request.project_id ?? null,
      hosts: [...new Set(request.hosts ?? [])],
      states: [...new Set(request.states ?? [])],
      kind: request.kind,
      url: request.url,
      format: request.format,
      secrets: [{ secret, expiresAt: null }],
      createdBy,
      createdAt: this.clock(),
    };
    await this.store.insert(subscription);
    return { ...viewOf(subscription), secret };
  }

  async get(id: string): Promise<Subscription> {
    const subscription = await this.store.get(id);
    if (!subscription) throw subscriptionNotFound(id);
    return subscription;
  }

  async list(org: string): Promise<SubscriptionView[]> {
    return (await this.store.list(org)).map(viewOf);
  }

  async remove(id: string): Promise<void> {
    if (!(await this.store.remove(id))) throw subscriptionNotFound(id);
  }

  /** A new secret, shown once; the current one keeps signing for `overlapSeconds`. */
  async rotateSecret(id: string, overlapSeconds: number): Promise<SubscriptionView & { secret: string }> {
    const subscription = await this.get(id);
    const now = this.clock();
    const until = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
    // The secrets that sign now keep signing until the overlap ends (sooner, if they were to).
    const kept =
      overlapSeconds === 0
        ? []
        : subscription.secrets
            .filter((each) => each.expiresAt === null || Date.parse(each.expiresAt) > now.getTime())
            .map((each) => ({
              secret: each.secret,
              expiresAt: each.expiresAt !== null && each.expiresAt < until ? each.expiresAt : until,
            }));
    const secret = newSecret();
    const secrets = [...kept, { secret, expiresAt: null }];
    await this.store.setSecrets(id, secrets);
    return { ...viewOf({ ...subscription, secrets }), secret };
  }
}
