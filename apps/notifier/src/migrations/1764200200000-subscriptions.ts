import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Subscriptions to maintenance events and the deliveries owed to them: one row per event and
 * subscription, delivered in order per subscription, retried until its deadline, then dead.
 */
export class Subscriptions1764200200000 implements MigrationInterface {
  name = 'Subscriptions1764200200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE notifier.subscriptions (
        id uuid PRIMARY KEY,
        org text NOT NULL,
        scope text NOT NULL,
        project text,
        hosts text[] NOT NULL DEFAULT '{}',
        states text[] NOT NULL DEFAULT '{}',
        kind text NOT NULL,
        url text,
        format text,
        secrets jsonb NOT NULL DEFAULT '[]',
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX subscriptions_by_org ON notifier.subscriptions (org, scope, project)`);
    await runner.query(`
      CREATE TABLE notifier.deliveries (
        id bigserial PRIMARY KEY,
        subscription_id uuid NOT NULL REFERENCES notifier.subscriptions (id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        event_time timestamptz NOT NULL,
        event_source text NOT NULL,
        subject text NOT NULL,
        payload jsonb NOT NULL,
        state text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        deadline_at timestamptz NOT NULL,
        locked_until timestamptz,
        delivered_at timestamptz,
        UNIQUE (subscription_id, event_id)
      )`);
    await runner.query(
      `CREATE INDEX deliveries_pending ON notifier.deliveries (subscription_id, id) WHERE state = 'pending'`,
    );
    await runner.query(`CREATE INDEX deliveries_by_state ON notifier.deliveries (state, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS notifier.deliveries');
    await runner.query('DROP TABLE IF EXISTS notifier.subscriptions');
  }
}
