import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The NATS users the exchange issued to service accounts' keys, kept until their JWTs end: a
 * user whose key is revoked, removed or ended before the user is put in the account's
 * revocations. Only an addition: the previous release never reads it.
 */
export class BusUsers1765000000000 implements MigrationInterface {
  name = 'BusUsers1765000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.bus_users (
        user_key text PRIMARY KEY,
        api_key text NOT NULL,
        issued_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await runner.query('CREATE INDEX bus_users_by_end ON exchange.bus_users (expires_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.bus_users');
  }
}
