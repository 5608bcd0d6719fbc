import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class Services1763856100000 implements MigrationInterface {
  name = 'Services1763856100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.services (
        org text NOT NULL REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        id text NOT NULL,
        url text NOT NULL,
        version text NOT NULL,
        arch text NOT NULL,
        runtime jsonb NOT NULL,
        description text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, id),
        CONSTRAINT services_url_version_arch_key UNIQUE (org, url, version, arch)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.services');
  }
}
