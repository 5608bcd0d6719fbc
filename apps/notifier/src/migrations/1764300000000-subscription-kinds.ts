import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** `nats` subscriptions: the NATS user issued to the subscriber and when its credentials expire. */
export class SubscriptionKinds1764300000000 implements MigrationInterface {
  name = 'SubscriptionKinds1764300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE notifier.subscriptions
        ADD COLUMN nats_user text,
        ADD COLUMN credentials_expire_at timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE notifier.subscriptions DROP COLUMN nats_user, DROP COLUMN credentials_expire_at`);
  }
}
