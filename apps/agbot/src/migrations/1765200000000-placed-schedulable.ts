import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Whether each node's desired workloads were placed while it was schedulable, so that a reader
 * (a maintenance session waiting for its uncordoned host to serve again) knows a placement made
 * after the uncordon from one made before. Rows written before say true; the first round after
 * the upgrade writes the cordoned nodes' rows again. Only an addition: the previous release
 * never reads it.
 */
export class PlacedSchedulable1765200000000 implements MigrationInterface {
  name = 'PlacedSchedulable1765200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE agbot.node_workloads ADD COLUMN schedulable boolean NOT NULL DEFAULT true',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE agbot.node_workloads DROP COLUMN schedulable');
  }
}
