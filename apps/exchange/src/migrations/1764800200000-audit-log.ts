import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The audit trail: each org's records in order (`seq` from 1), each chained to the one before
 * it by hash, one per event (`event_id`); and each org's head, the last record's place and hash,
 * which appends lock, and the anchor where verification starts once old records are pruned.
 */
export class AuditLog1764800200000 implements MigrationInterface {
  name = 'AuditLog1764800200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.audit_log (
        org text NOT NULL,
        seq bigint NOT NULL,
        event_id text NOT NULL UNIQUE,
        at timestamptz NOT NULL,
        actor text NOT NULL,
        actor_kind text NOT NULL,
        via text,
        service text NOT NULL,
        action text NOT NULL,
        target text NOT NULL,
        outcome text NOT NULL,
        source text,
        request_id text,
        trace_id text,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (org, seq)
      )`);
    await runner.query('CREATE INDEX audit_log_by_actor ON exchange.audit_log (org, actor, seq)');
    await runner.query('CREATE INDEX audit_log_by_target ON exchange.audit_log (org, target, seq)');
    await runner.query('CREATE INDEX audit_log_by_time ON exchange.audit_log (org, at)');
    await runner.query(`
      CREATE TABLE exchange.audit_heads (
        org text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT 0,
        hash text NOT NULL,
        anchor_seq bigint NOT NULL DEFAULT 0,
        anchor_hash text NOT NULL,
        exported_seq bigint NOT NULL DEFAULT 0
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.audit_heads');
    await runner.query('DROP TABLE exchange.audit_log');
  }
}
