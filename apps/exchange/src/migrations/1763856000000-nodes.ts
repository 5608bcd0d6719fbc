import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class Nodes1763856000000 implements MigrationInterface {
  name = 'Nodes1763856000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.nodes (
        org text NOT NULL REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        id text NOT NULL,
        owner text,
        name text NOT NULL,
        token_hash text NOT NULL,
        pattern text,
        policy jsonb NOT NULL DEFAULT '{"properties": [], "constraints": []}',
        labels jsonb NOT NULL DEFAULT '{}',
        tags text[] NOT NULL DEFAULT '{}',
        rack text,
        ha_group text,
        schedulable boolean NOT NULL DEFAULT true,
        maintenance jsonb,
        status jsonb,
        desired_workloads jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, id)
      )`);
    await runner.query('CREATE INDEX nodes_labels_idx ON exchange.nodes USING gin (labels)');
    await runner.query(
      'CREATE INDEX nodes_ha_group_idx ON exchange.nodes (org, ha_group) WHERE ha_group IS NOT NULL',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.nodes');
  }
}
