import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Numbers each state of an instance group told to the agbot, so that it keeps the newest
 * whatever order they arrive in. Only an addition: the previous release never reads it.
 */
export class InstanceGroupRevisions1765100000000 implements MigrationInterface {
  name = 'InstanceGroupRevisions1765100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE SEQUENCE maintenance_session.instance_group_revisions');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP SEQUENCE maintenance_session.instance_group_revisions');
  }
}
