import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The refresh tokens of users' logins, kept as SHA-256 hashes. A login is one family: each use
 * replaces the token with the next of the family, which keeps the login's expiry; logging out
 * revokes the whole family. Deleting the user deletes its logins.
 */
export class RefreshTokens1764200000000 implements MigrationInterface {
  name = 'RefreshTokens1764200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.refresh_tokens (
        token_hash text PRIMARY KEY,
        family uuid NOT NULL,
        org text NOT NULL,
        username text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (org, username) REFERENCES exchange.users (org, username) ON DELETE CASCADE
      )`);
    await runner.query('CREATE INDEX refresh_tokens_by_family ON exchange.refresh_tokens (family)');
    await runner.query(
      'CREATE INDEX refresh_tokens_by_user ON exchange.refresh_tokens (org, username, expires_at)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.refresh_tokens');
  }
}
