import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class AgentPackages1763942400000 implements MigrationInterface {
  name = 'AgentPackages1763942400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.agent_packages (
        version text PRIMARY KEY,
        precedence text NOT NULL UNIQUE,
        manifest jsonb NOT NULL,
        sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        size bigint NOT NULL CHECK (size > 0),
        chunk_size integer NOT NULL CHECK (chunk_size > 0),
        signature bytea CHECK (signature IS NULL OR length(signature) = 64),
        uploaded_by text NOT NULL,
        uploaded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE exchange.agent_package_chunks (
        version text NOT NULL REFERENCES exchange.agent_packages (version) ON DELETE CASCADE,
        seq integer NOT NULL CHECK (seq >= 0),
        data bytea NOT NULL,
        PRIMARY KEY (version, seq)
      )`);
    // Gzip does not compress again; out-of-line uncompressed storage lets substring() read a
    // range of a chunk without detoasting all of it.
    await runner.query('ALTER TABLE exchange.agent_package_chunks ALTER COLUMN data SET STORAGE EXTERNAL');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.agent_package_chunks');
    await runner.query('DROP TABLE exchange.agent_packages');
  }
}
