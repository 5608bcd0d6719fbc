import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Which names a webhook subscription's events carry: the guideline's (`DOWN_SCALE`) or Fenix's
 * (`SCALE_IN`), for VNF managers written against either. Existing subscriptions keep the
 * guideline's; the previous release ignores the column.
 */
export class SubscriptionEventNames1765000000000 implements MigrationInterface {
  name = 'SubscriptionEventNames1765000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      "ALTER TABLE notifier.subscriptions ADD COLUMN event_names text NOT NULL DEFAULT 'guideline'",
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE notifier.subscriptions DROP COLUMN event_names');
  }
}
