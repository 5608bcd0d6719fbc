/** Subscriptions in SQL. */
import { type AuditTrail } from '@careen/service';
import { type DataSource, type EntityManager } from 'typeorm';
import { type SigningSecret, type Subscription } from './subscription';

export interface SubscriptionRow {
  id: string;
  org: string;
  scope: Subscription['scope'];
  project: string | null;
  hosts: string[];
  states: string[];
  kind: Subscription['kind'];
  url: string | null;
  format: Subscription['format'];
  event_names: Subscription['eventNames'];
  secrets: SigningSecret[];
  nats_user: string | null;
  credentials_expire_at: Date | null;
  created_by: string;
  created_at: Date;
}

export function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    org: row.org,
    scope: row.scope,
    project: row.project,
    hosts: row.hosts,
    states: row.states,
    kind: row.kind,
    url: row.url,
    format: row.format,
    eventNames: row.event_names,
    secrets: row.secrets,
    natsUser: row.nats_user,
    credentialsExpireAt: row.credentials_expire_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

export class SubscriptionStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: Pick<AuditTrail, 'record'>,
  ) {}

  /** Runs `statement` and tells the audit trail of it, in one transaction. */
  private audited(
    org: string,
    id: string,
    action: string,
    statement: (manager: EntityManager) => Promise<unknown>,
  ): Promise<unknown> {
    return this.dataSource.transaction(async (manager) => {
      const result = await statement(manager);
      await this.audit.record(manager, {
        org,
        action: `subscription.${action}`,
        target: `subscription/${id}`,
      });
      return result;
    });
  }

  async insert(subscription: Subscription): Promise<void> {
    await this.audited(subscription.org, subscription.id, 'created', (manager) =>
      manager.query(
        `INSERT INTO notifier.subscriptions
         (id, org, scope, project, hosts, states, kind, url, format, secrets, nats_user, credentials_expire_at, created_by,
          event_names)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          subscription.id,
          subscription.org,
          subscription.scope,
          subscription.project,
          subscription.hosts,
          subscription.states,
          subscription.kind,
          subscription.url,
          subscription.format,
          JSON.stringify(subscription.secrets),
          subscription.natsUser,
          subscription.credentialsExpireAt,
          subscription.createdBy,
          subscription.eventNames,
        ],
      ),
    );
  }

  async get(id: string): Promise<Subscription | undefined> {
    const rows: SubscriptionRow[] = await this.dataSource.query(
      'SELECT * FROM notifier.subscriptions WHERE id = $1',
      [id],
    );
    return rows[0] && toSubscription(rows[0]);
  }

  async list(org: string): Promise<Subscription[]> {
    const rows: SubscriptionRow[] = await this.dataSource.query(
      'SELECT * FROM notifier.subscriptions WHERE org = $1 ORDER BY created_at, id',
      [org],
    );
    return rows.map(toSubscription);
  }

  async remove(subscription: Pick<Subscription, 'id' | 'org'>): Promise<boolean> {
    const [, count] = (await this.audited(subscription.org, subscription.id, 'removed', (manager) =>
      manager.query('DELETE FROM notifier.subscriptions WHERE id = $1', [subscription.id]),
    )) as [unknown, number];
    return count > 0;
  }

  async setSecrets(subscription: Pick<Subscription, 'id' | 'org'>, secrets: SigningSecret[]): Promise<void> {
    await this.audited(subscription.org, subscription.id, 'secret-rotated', (manager) =>
      manager.query('UPDATE notifier.subscriptions SET secrets = $2 WHERE id = $1', [
        subscription.id,
        JSON.stringify(secrets),
      ]),
    );
  }

  async setNatsUser(
    subscription: Pick<Subscription, 'id' | 'org'>,
    user: string,
    expireAt: Date,
  ): Promise<void> {
    await this.audited(subscription.org, subscription.id, 'credentials-issued', (manager) =>
      manager.query(
        'UPDATE notifier.subscriptions SET nats_user = $2, credentials_expire_at = $3 WHERE id = $1',
        [subscription.id, user, expireAt],
      ),
    );
  }

  /** The webhook subscriptions of `orgs` that may want events of `projects` (any state). */
  async webhooksForProjects(orgs: readonly string[], projects: readonly string[]): Promise<Subscription[]> {
    const rows: SubscriptionRow[] = await this.dataSource.query(
      `SELECT * FROM notifier.subscriptions
        WHERE org = ANY($1) AND kind = 'webhook'
          AND (scope = 'all-projects' OR (scope = 'project' AND project = ANY($2))) ORDER BY id`,
      [orgs, projects],
    );
    return rows.map(toSubscription);
  }

  /** The admin webhook subscriptions of `orgs`. */
  async webhooksForAdmins(orgs: readonly string[]): Promise<Subscription[]> {
    const rows: SubscriptionRow[] = await this.dataSource.query(
      `SELECT * FROM notifier.subscriptions WHERE org = ANY($1) AND kind = 'webhook' AND scope = 'admin' ORDER BY id`,
      [orgs],
    );
    return rows.map(toSubscription);
  }

  /** Whether anyone in the org listens to the project's events. */
  async projectHasSubscriber(org: string, project: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM notifier.subscriptions
        WHERE org = $1 AND (scope = 'all-projects' OR (scope = 'project' AND project = $2)) LIMIT 1`,
      [org, project],
    );
    return rows.length > 0;
  }
}
