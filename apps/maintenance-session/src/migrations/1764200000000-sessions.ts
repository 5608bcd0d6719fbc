import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Maintenance sessions: each with its plan and its progress (the workflow's stored state), the
 * hosts it holds (a host is in at most one open session), the commands its steps gave that are
 * still to be carried out, the host actions under way and a timeline of what was sent and heard.
 */
export class MaintenanceSessions1764200000000 implements MigrationInterface {
  name = 'MaintenanceSessions1764200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE maintenance_session.sessions (
        id uuid PRIMARY KEY,
        org text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        state text NOT NULL,
        paused boolean NOT NULL DEFAULT false,
        host_action jsonb NOT NULL,
        metadata jsonb NOT NULL,
        plan jsonb NOT NULL,
        progress jsonb NOT NULL,
        capability_key text NOT NULL,
        closed_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX sessions_open ON maintenance_session.sessions (created_at) WHERE closed_at IS NULL`,
    );
    await runner.query(`CREATE INDEX sessions_by_org ON maintenance_session.sessions (org, created_at)`);
    await runner.query(`
      CREATE TABLE maintenance_session.session_hosts (
        session_id uuid NOT NULL REFERENCES maintenance_session.sessions (id) ON DELETE CASCADE,
        org text NOT NULL,
        host text NOT NULL,
        open boolean NOT NULL DEFAULT true,
        PRIMARY KEY (session_id, host)
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX session_hosts_one_open ON maintenance_session.session_hosts (org, host) WHERE open`,
    );
    await runner.query(`
      CREATE TABLE maintenance_session.session_commands (
        id bigserial PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES maintenance_session.sessions (id) ON DELETE CASCADE,
        host text,
        command jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        done_at timestamptz,
        result jsonb,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`);
    await runner.query(
      `CREATE INDEX session_commands_pending ON maintenance_session.session_commands (session_id, id) WHERE done_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE maintenance_session.host_actions (
        session_id uuid NOT NULL REFERENCES maintenance_session.sessions (id) ON DELETE CASCADE,
        host text NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        due_at timestamptz,
        detail jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (session_id, host)
      )`);
    await runner.query(`
      CREATE TABLE maintenance_session.session_timeline (
        id bigserial PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES maintenance_session.sessions (id) ON DELETE CASCADE,
        at timestamptz NOT NULL DEFAULT now(),
        kind text NOT NULL,
        project text,
        host text,
        state text,
        detail jsonb NOT NULL DEFAULT '{}'
      )`);
    await runner.query(
      `CREATE INDEX session_timeline_by_session ON maintenance_session.session_timeline (session_id, id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['session_timeline', 'host_actions', 'session_commands', 'session_hosts', 'sessions'])
      await runner.query(`DROP TABLE IF EXISTS maintenance_session.${table}`);
  }
}
