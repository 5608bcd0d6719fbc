import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The soak of an alert gate: the steps that ended lately in an org, which every grant there
 * reads (grant-statements.ts, ENDED_STEPS), by org and time; and which halts a soak made (an
 * alert fired during it), so that the orchestrator fails the step rather than wait for it.
 */
export class Soaks1764700000000 implements MigrationInterface {
  name = 'Soaks1764700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE INDEX upgrade_grant_history_recent_idx ON agbot.upgrade_grant_history (org, at)',
    );
    await runner.query(
      'ALTER TABLE agbot.upgrade_grants ADD COLUMN soak_failed boolean NOT NULL DEFAULT false',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE agbot.upgrade_grants DROP COLUMN soak_failed');
    await runner.query('DROP INDEX agbot.upgrade_grant_history_recent_idx');
  }
}
