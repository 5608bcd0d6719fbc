import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * What the agbot has placed: the desired workloads it wants each node to run (and whether the
 * exchange has them yet), and the state of every rolled service upgrade, so that a new leader
 * goes on exactly where the old one stopped.
 */
export class Placement1764000200000 implements MigrationInterface {
  name = 'Placement1764000200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE agbot.node_workloads (
        org text NOT NULL,
        node text NOT NULL,
        workloads jsonb NOT NULL,
        published boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, node)
      )`);
    await runner.query(
      'CREATE INDEX node_workloads_unpublished_idx ON agbot.node_workloads (org, node) WHERE NOT published',
    );
    await runner.query(`
      CREATE TABLE agbot.rollouts (
        org text NOT NULL,
        deployment_policy text NOT NULL,
        state jsonb NOT NULL,
        report jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, deployment_policy)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE agbot.rollouts');
    await runner.query('DROP TABLE agbot.node_workloads');
  }
}
