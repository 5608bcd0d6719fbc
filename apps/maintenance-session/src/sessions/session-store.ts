/**
 * The maintenance schema in SQL: sessions and the hosts they hold, the commands still to carry
 * out, host actions under way and the timeline. Writes take the caller's transaction manager;
 * a session's row is locked (FOR UPDATE) by whoever advances it, so a reply taken by one
 * replica and a step driven by another never overwrite each other.
 */
import { type SessionState } from '@careen/contracts';
import { type DataSource, type EntityManager } from 'typeorm';
import { type SessionProgress } from '../workflow/workflow.types';
import { hostsInOpenSession } from './maintenance.errors';
import { type SlotHolderView, type SlotWait } from './session-view';
import {
  type DriverCommand,
  type PendingCommand,
  type SessionRecord,
  type TimelineEntry,
} from './session-record';

const S = 'maintenance_session';

interface SessionRow {
  id: string;
  org: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  state: SessionState;
  paused: boolean;
  host_action: SessionRecord['hostAction'];
  metadata: Record<string, unknown>;
  plan: SessionRecord['plan'];
  progress: SessionProgress;
  capability_key: string;
  closed_at: Date | null;
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    org: row.org,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    state: row.state,
    paused: row.paused,
    hostAction: row.host_action,
    metadata: row.metadata,
    plan: row.plan,
    // The column is what lists and the driver read; the workflow reads it from the progress.
    progress: { ...row.progress, paused: row.paused },
    capabilityKey: row.capability_key,
    closedAt: row.closed_at,
  };
}

export class SessionStore {
  constructor(private readonly dataSource: DataSource) {}

  /** For a statement that commits on its own. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /** Stores a new session with its hosts; refuses, naming the holders, hosts in another open session. */
  async insert(manager: EntityManager, record: SessionRecord): Promise<void> {
    const hosts = record.plan.hosts.map((host) => host.id);
    const held: { host: string; session_id: string }[] = await manager.query(
      `SELECT host, session_id FROM ${S}.session_hosts WHERE org = $1 AND host = ANY($2) AND open`,
      [record.org, hosts],
    );
    if (held.length > 0)
      throw hostsInOpenSession(held.map((row) => ({ host: row.host, session: row.session_id })));
    await manager.query(
      `INSERT INTO ${S}.sessions (id, org, created_by, state, host_action, metadata, plan, progress, capability_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        record.id,
        record.org,
        record.createdBy,
        record.state,
        JSON.stringify(record.hostAction),
        JSON.stringify(record.metadata),
        JSON.stringify(record.plan),
        JSON.stringify(record.progress),
        record.capabilityKey,
      ],
    );
    try {
      await manager.query(
        `INSERT INTO ${S}.session_hosts (session_id, org, host) SELECT $1, $2, unnest($3::text[])`,
        [record.id, record.org, hosts],
      );
    } catch (error) {
      // Another session took one of the hosts between the check and the insert.
      if ((error as { code?: string }).code === '23505')
        throw hostsInOpenSession(hosts.map((host) => ({ host, session: 'being created' })));
      throw error;
    }
  }

  async get(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<SessionRecord | undefined> {
    const rows: SessionRow[] = await manager.query(`SELECT * FROM ${S}.sessions WHERE id = $1`, [id]);
    return rows[0] && toRecord(rows[0]);
  }

  /** The session, locked until the caller's transaction ends. */
  async lock(manager: EntityManager, id: string): Promise<SessionRecord | undefined> {
    const rows: SessionRow[] = await manager.query(`SELECT * FROM ${S}.sessions WHERE id = $1 FOR UPDATE`, [
      id,
    ]);
    return rows[0] && toRecord(rows[0]);
  }

  /** The org's sessions, newest first. */
  async list(org: string, limit: number): Promise<SessionRecord[]> {
    const rows: SessionRow[] = await this.dataSource.query(
      `SELECT * FROM ${S}.sessions WHERE org = $1 ORDER BY created_at DESC LIMIT $2`,
      [org, limit],
    );
    return rows.map(toRecord);
  }

  /**
   * The sessions the driver moves: not closed, oldest first. Paused ones too: their hosts under
   * way finish and keep their slots, and the workflow starts no further host while paused.
   */
  async drivable(): Promise<SessionRecord[]> {
    const rows: SessionRow[] = await this.dataSource.query(
      `SELECT * FROM ${S}.sessions WHERE closed_at IS NULL ORDER BY created_at`,
    );
    return rows.map(toRecord);
  }

  async saveProgress(manager: EntityManager, id: string, progress: SessionProgress): Promise<void> {
    await manager.query(
      `UPDATE ${S}.sessions SET progress = $2, state = $3, paused = $4, updated_at = now() WHERE id = $1`,
      [id, JSON.stringify(progress), progress.state, progress.paused === true],
    );
  }

  /** A finished session whose commands are all carried out gives its hosts back. */
  async close(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE ${S}.sessions SET closed_at = now() WHERE id = $1 AND closed_at IS NULL`, [
      id,
    ]);
    await manager.query(`UPDATE ${S}.session_hosts SET open = false WHERE session_id = $1`, [id]);
  }

  async addCommands(
    manager: EntityManager,
    sessionId: string,
    commands: readonly DriverCommand[],
  ): Promise<void> {
    if (commands.length === 0) return;
    await manager.query(
      `INSERT INTO ${S}.session_commands (session_id, host, command)
       SELECT $1, c->>'host', c FROM jsonb_array_elements($2::jsonb) AS c`,
      [sessionId, JSON.stringify(commands)],
    );
  }

  async pendingCommands(sessionId: string): Promise<PendingCommand[]> {
    const rows: {
      id: string;
      session_id: string;
      host: string | null;
      command: DriverCommand;
      attempts: number;
      result: Record<string, unknown> | null;
    }[] = await this.dataSource.query(
      `SELECT id, session_id, host, command, attempts, result FROM ${S}.session_commands
          WHERE session_id = $1 AND done_at IS NULL ORDER BY id`,
      [sessionId],
    );
    return rows.map((row) => ({
      id: String(row.id),
      sessionId: row.session_id,
      host: row.host,
      command: row.command,
      attempts: row.attempts,
      result: row.result,
    }));
  }

  /** Whether `kind` was given for the host and carried out (the last one of that kind, if several). */
  async commandDone(sessionId: string, host: string, kind: DriverCommand['kind']): Promise<boolean> {
    const rows: { done: boolean }[] = await this.dataSource.query(
      `SELECT done_at IS NOT NULL AS done FROM ${S}.session_commands
        WHERE session_id = $1 AND host = $2 AND command->>'kind' = $3 ORDER BY id DESC LIMIT 1`,
      [sessionId, host, kind],
    );
    return rows[0]?.done ?? false;
  }

  /** Marks the command carried out, with what the driver must remember of it (a cordon found in place). */
  async commandCarriedOut(
    manager: EntityManager,
    id: string,
    result?: Record<string, unknown>,
  ): Promise<void> {
    await manager.query(
      `UPDATE ${S}.session_commands SET done_at = now(), attempts = attempts + 1, result = $2 WHERE id = $1`,
      [id, result ? JSON.stringify(result) : null],
    );
  }

  /** Keeps what a command found before it acts, so that an attempt after a lost one reads it. */
  async keepFinding(id: string, result: Record<string, unknown>): Promise<void> {
    await this.dataSource.query(`UPDATE ${S}.session_commands SET result = $2 WHERE id = $1`, [
      id,
      JSON.stringify(result),
    ]);
  }

  /** What the last carried-out `kind` command for the host left to remember, if anything. */
  async commandResult(
    sessionId: string,
    host: string,
    kind: DriverCommand['kind'],
  ): Promise<Record<string, unknown> | undefined> {
    const rows: { result: Record<string, unknown> | null }[] = await this.dataSource.query(
      `SELECT result FROM ${S}.session_commands
        WHERE session_id = $1 AND host = $2 AND command->>'kind' = $3 AND done_at IS NOT NULL
        ORDER BY id DESC LIMIT 1`,
      [sessionId, host, kind],
    );
    return rows[0]?.result ?? undefined;
  }

  /** The command must wait; `found` (who holds a refused slot) replaces what it kept, when given. */
  async commandPutOff(id: string, why: string, found?: Record<string, unknown>): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${S}.session_commands SET attempts = attempts + 1, last_error = $2, result = coalesce($3, result)
        WHERE id = $1`,
      [id, why, found ? JSON.stringify(found) : null],
    );
  }

  /**
   * Per session, per host: why its pending take-slot was last refused, as the agbot said it, and
   * who holds the slot when a member of its group does.
   */
  async slotWaits(sessionIds: readonly string[]): Promise<Map<string, Map<string, SlotWait>>> {
    const rows: { session_id: string; host: string; holder: SlotHolderView | null; why: string }[] =
      await this.dataSource.query(
        `SELECT DISTINCT ON (session_id, host) session_id, host, result->'holder' AS holder, last_error AS why
           FROM ${S}.session_commands
          WHERE session_id = ANY($1) AND done_at IS NULL AND command->>'kind' = 'take-slot'
            AND last_error IS NOT NULL
          ORDER BY session_id, host, id DESC`,
        [sessionIds],
      );
    const waits = new Map<string, Map<string, SlotWait>>();
    for (const row of rows)
      waits.set(
        row.session_id,
        (waits.get(row.session_id) ?? new Map()).set(row.host, { holder: row.holder, why: row.why }),
      );
    return waits;
  }

  async timeline(manager: EntityManager, sessionId: string, entries: readonly Omit<TimelineEntry, 'at'>[]) {
    if (entries.length === 0) return;
    await manager.query(
      `INSERT INTO ${S}.session_timeline (session_id, kind, project, host, state, detail)
       SELECT $1, e->>'kind', e->>'project', e->>'host', e->>'state', coalesce(e->'detail', '{}')
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(e, n) ORDER BY n`,
      [sessionId, JSON.stringify(entries)],
    );
  }

  async readTimeline(sessionId: string): Promise<TimelineEntry[]> {
    const rows: (Omit<TimelineEntry, 'at'> & { at: Date })[] = await this.dataSource.query(
      `SELECT at, kind, project, host, state, detail FROM ${S}.session_timeline WHERE session_id = $1 ORDER BY id`,
      [sessionId],
    );
    return rows.map((row) => ({ ...row, at: row.at.toISOString() }));
  }

  async startHostAction(
    manager: EntityManager,
    sessionId: string,
    host: string,
    dueAt: Date | null,
    detail: Record<string, unknown>,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO ${S}.host_actions (session_id, host, due_at, detail) VALUES ($1, $2, $3, $4)
       ON CONFLICT (session_id, host) DO NOTHING`,
      [sessionId, host, dueAt, JSON.stringify(detail)],
    );
  }

  async hostAction(
    sessionId: string,
    host: string,
  ): Promise<{ dueAt: Date | null; detail: Record<string, unknown> } | undefined> {
    const rows: { due_at: Date | null; detail: Record<string, unknown> }[] = await this.dataSource.query(
      `SELECT due_at, detail FROM ${S}.host_actions WHERE session_id = $1 AND host = $2`,
      [sessionId, host],
    );
    return rows[0] && { dueAt: rows[0].due_at, detail: rows[0].detail };
  }

  /** The open session that holds the host, if any. */
  async openSessionOf(org: string, host: string): Promise<string | undefined> {
    const rows: { session_id: string }[] = await this.dataSource.query(
      `SELECT session_id FROM ${S}.session_hosts WHERE org = $1 AND host = $2 AND open`,
      [org, host],
    );
    return rows[0]?.session_id;
  }
}
