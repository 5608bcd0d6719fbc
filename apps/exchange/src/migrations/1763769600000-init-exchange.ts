import { outboxSchemaDown, outboxSchemaUp } from '@careen/persistence';
import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class InitExchange1763769600000 implements MigrationInterface {
  name = 'InitExchange1763769600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.orgs (
        id text PRIMARY KEY,
        label text NOT NULL,
        upgrade_defaults jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE exchange.users (
        org text NOT NULL REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        username text NOT NULL,
        role text NOT NULL CHECK (role IN ('hubAdmin', 'orgAdmin', 'user')),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, username)
      )`);
    await runner.query(`
      CREATE TABLE exchange.signing_keys (
        kid text PRIMARY KEY,
        private_jwk jsonb NOT NULL,
        public_jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    for (const sql of outboxSchemaUp('exchange')) await runner.query(sql);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaDown('exchange')) await runner.query(sql);
    await runner.query('DROP TABLE exchange.signing_keys');
    await runner.query('DROP TABLE exchange.users');
    await runner.query('DROP TABLE exchange.orgs');
  }
}
