import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Nodes declared busy (a backup, a resize, a restore under way): no disruption starts on one
 * until it is declared free or the declaration lapses at `until`.
 */
export class BusyNodes1764600000000 implements MigrationInterface {
  name = 'BusyNodes1764600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE agbot.busy_nodes (
        org text NOT NULL,
        node text NOT NULL,
        reason text NOT NULL,
        declared_by text NOT NULL,
        declared_at timestamptz NOT NULL,
        until timestamptz NOT NULL,
        PRIMARY KEY (org, node)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE agbot.busy_nodes');
  }
}
