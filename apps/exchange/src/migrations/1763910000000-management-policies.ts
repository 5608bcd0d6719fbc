import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Node management policies and the per-node status of each, written by the node. */
export class ManagementPolicies1763910000000 implements MigrationInterface {
  name = 'ManagementPolicies1763910000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.management_policies (
        org text NOT NULL REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        name text NOT NULL,
        owner text,
        label text NOT NULL DEFAULT '',
        description text NOT NULL DEFAULT '',
        constraints jsonb NOT NULL DEFAULT '[]',
        properties jsonb NOT NULL DEFAULT '[]',
        patterns text[] NOT NULL DEFAULT '{}',
        nodes text[] NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT false,
        agent_upgrade_policy jsonb,
        failure_threshold integer CHECK (failure_threshold > 0),
        disabled_reason text,
        last_updated timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, name)
      )`);
    await runner.query(`
      CREATE TABLE exchange.management_statuses (
        org text NOT NULL,
        node text NOT NULL,
        nmp text NOT NULL,
        status text NOT NULL,
        version text,
        start_time timestamptz,
        end_time timestamptz,
        error text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, node, nmp),
        FOREIGN KEY (org, node) REFERENCES exchange.nodes (org, id) ON DELETE CASCADE,
        FOREIGN KEY (org, nmp) REFERENCES exchange.management_policies (org, name) ON DELETE CASCADE
      )`);
    await runner.query(
      'CREATE INDEX management_statuses_by_nmp ON exchange.management_statuses (org, nmp, status)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.management_statuses');
    await runner.query('DROP TABLE exchange.management_policies');
  }
}
