import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Single sign-on: an org's OpenID provider (at most one; the hub's is the `root` org's), whether
 * the org's users may still sign in with a password, which identity provider a user comes from
 * (none for a local user), and, for a login made through a provider, the provider's refresh
 * token, with which each renewal asks the provider again who the user is and in which groups.
 * Only additions: the previous release reads every row as before.
 */
export class SingleSignOn1764900000000 implements MigrationInterface {
  name = 'SingleSignOn1764900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.identity_providers (
        org text PRIMARY KEY REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        issuer text NOT NULL,
        client_id text NOT NULL,
        client_secret text,
        scopes text[] NOT NULL,
        groups_claim text NOT NULL,
        username_claim text NOT NULL,
        role_mappings jsonb NOT NULL,
        updated_by text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query('ALTER TABLE exchange.orgs ADD COLUMN password_login boolean NOT NULL DEFAULT true');
    await runner.query('ALTER TABLE exchange.users ADD COLUMN identity_provider text');
    await runner.query('ALTER TABLE exchange.refresh_tokens ADD COLUMN upstream_refresh_token text');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE exchange.refresh_tokens DROP COLUMN upstream_refresh_token');
    await runner.query('ALTER TABLE exchange.users DROP COLUMN identity_provider');
    await runner.query('ALTER TABLE exchange.orgs DROP COLUMN password_login');
    await runner.query('DROP TABLE exchange.identity_providers');
  }
}
