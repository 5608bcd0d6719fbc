import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class DeploymentPolicies1763856200000 implements MigrationInterface {
  name = 'DeploymentPolicies1763856200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.deployment_policies (
        org text NOT NULL REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        project text NOT NULL,
        service jsonb NOT NULL,
        properties jsonb NOT NULL DEFAULT '[]',
        constraints jsonb NOT NULL DEFAULT '[]',
        placement jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, name)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.deployment_policies');
  }
}
