import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Whether a rollout or a single-node upgrade was asked to take nodes below the version they run:
 * its management policies then carry `allowDowngrade`, so that agents go down to the version.
 * Rows from before were never allowed to.
 */
export class AllowDowngrade1764600000000 implements MigrationInterface {
  name = 'AllowDowngrade1764600000000';

  async up(runner: QueryRunner): Promise<void> {
    for (const table of ['rollouts', 'upgrades'])
      await runner.query(
        `ALTER TABLE deployment_orchestrator.${table} ADD COLUMN allow_downgrade boolean NOT NULL DEFAULT false`,
      );
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['rollouts', 'upgrades'])
      await runner.query(`ALTER TABLE deployment_orchestrator.${table} DROP COLUMN allow_downgrade`);
  }
}
