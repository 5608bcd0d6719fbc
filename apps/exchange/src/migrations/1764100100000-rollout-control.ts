import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A management policy's rollout can be paused and resumed, and a re-enabled policy counts only
 * the failures after it; each node's status knows which attempt it belongs to and the version
 * the node ran when that attempt began.
 */
export class RolloutControl1764100100000 implements MigrationInterface {
  name = 'RolloutControl1764100100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE exchange.management_policies
        ADD COLUMN paused boolean NOT NULL DEFAULT false,
        ADD COLUMN paused_at timestamptz,
        ADD COLUMN resume_window jsonb,
        ADD COLUMN failures_counted_since timestamptz`);
    await runner.query(`
      ALTER TABLE exchange.management_statuses
        ADD COLUMN attempt integer NOT NULL DEFAULT 1,
        ADD COLUMN from_version text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE exchange.management_statuses DROP COLUMN attempt, DROP COLUMN from_version',
    );
    await runner.query(`
      ALTER TABLE exchange.management_policies
        DROP COLUMN paused, DROP COLUMN paused_at, DROP COLUMN resume_window, DROP COLUMN failures_counted_since`);
  }
}
