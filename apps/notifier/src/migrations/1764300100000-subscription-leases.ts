import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Deliverers lease subscriptions, not deliveries: a subscription is due (`due_at`) while it has
 * a pending delivery that may be tried, is drained in order by the one replica that leased it
 * (`lease_until`), and `owed_count` tells a drain that found nothing more whether new
 * deliveries were owed meanwhile. Claiming per delivery scanned every pending delivery each time.
 */
export class SubscriptionLeases1764300100000 implements MigrationInterface {
  name = 'SubscriptionLeases1764300100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE notifier.subscriptions
        ADD COLUMN due_at timestamptz,
        ADD COLUMN lease_until timestamptz,
        ADD COLUMN owed_count bigint NOT NULL DEFAULT 0`);
    await runner.query(
      `CREATE INDEX subscriptions_due ON notifier.subscriptions (due_at) WHERE due_at IS NOT NULL`,
    );
    await runner.query(`
      UPDATE notifier.subscriptions s SET due_at = (
        SELECT min(d.next_attempt_at) FROM notifier.deliveries d
         WHERE d.subscription_id = s.id AND d.state = 'pending')`);
    await runner.query('ALTER TABLE notifier.deliveries DROP COLUMN locked_until');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE notifier.deliveries ADD COLUMN locked_until timestamptz');
    await runner.query('DROP INDEX notifier.subscriptions_due');
    await runner.query(`
      ALTER TABLE notifier.subscriptions DROP COLUMN due_at, DROP COLUMN lease_until, DROP COLUMN owed_count`);
  }
}
