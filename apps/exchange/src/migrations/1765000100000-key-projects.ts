import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A service account's key may be limited to some projects (a VNF manager's key): null for the
 * whole org, as every key was. Only an addition: the previous release reads keys as before, and
 * would take a limited key for an org-wide one, so roll back only before limiting any.
 */
export class KeyProjects1765000100000 implements MigrationInterface {
  name = 'KeyProjects1765000100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE exchange.api_keys ADD COLUMN projects text[]');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE exchange.api_keys DROP COLUMN projects');
  }
}
