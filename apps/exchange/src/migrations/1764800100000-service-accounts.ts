import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Service accounts of an org and their keys: each key stored as the SHA-256 digest of its
 * secret, with its scopes, its end, when it was last used, and when it was revoked or which key
 * replaced it. Removing an account removes its keys.
 */
export class ServiceAccounts1764800100000 implements MigrationInterface {
  name = 'ServiceAccounts1764800100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.service_accounts (
        org text NOT NULL REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, name)
      )`);
    await runner.query(`
      CREATE TABLE exchange.api_keys (
        id text PRIMARY KEY,
        org text NOT NULL,
        account text NOT NULL,
        secret_digest text NOT NULL,
        scopes text[] NOT NULL,
        expires_at timestamptz NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        replaced_by text,
        FOREIGN KEY (org, account) REFERENCES exchange.service_accounts (org, name) ON DELETE CASCADE
      )`);
    await runner.query('CREATE INDEX api_keys_by_account ON exchange.api_keys (org, account)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.api_keys');
    await runner.query('DROP TABLE exchange.service_accounts');
  }
}
