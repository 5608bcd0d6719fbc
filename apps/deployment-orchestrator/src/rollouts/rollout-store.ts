/**
 * Rollouts in SQL, and the nodes each holds: a node is in at most one unfinished rollout or
 * single-node upgrade (`node_claims`). Whoever changes a rollout locks its row first (FOR UPDATE),
 * so the driver and an operator's pause or cancel never overwrite each other; the lock is held
 * only for the database's work, never while the exchange is asked anything.
 */
import { type DataSource, type EntityManager } from 'typeorm';
import { CommandStore } from '../driver/command-store';
import { nodesHeld } from '../orchestrator.errors';
import { type RolloutRecord, type RolloutState } from './rollout-record';

const S = 'deployment_orchestrator';

interface RolloutRow {
  id: string;
  org: string;
  strategy: string;
  strategy_version: number;
  target_version: string;
  allow_downgrade: boolean;
  state: RolloutState;
  reason: string | null;
  phase_timeout_seconds: number;
  document: RolloutRecord['document'];
  plan: RolloutRecord['plan'];
  progress: RolloutRecord['progress'];
  created_by: string;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const toRecord = (row: RolloutRow): RolloutRecord => ({
  id: row.id,
  org: row.org,
  strategy: row.strategy,
  strategyVersion: row.strategy_version,
  targetVersion: row.target_version,
  allowDowngrade: row.allow_downgrade,
  state: row.state,
  reason: row.reason,
  phaseTimeoutSeconds: row.phase_timeout_seconds,
  document: row.document,
  plan: row.plan,
  progress: row.progress,
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  finishedAt: row.finished_at,
});

/** Claims the nodes for `holder`; refuses, naming who holds them, nodes already held. */
export async function claimNodes(
  manager: EntityManager,
  org: string,
  nodes: readonly string[],
  holder: string,
): Promise<void> {
  const held: { node: string; holder: string }[] = await manager.query(
    `SELECT node, holder FROM ${S}.node_claims WHERE org = $1 AND node = ANY($2) ORDER BY node`,
    [org, nodes],
  );
  if (held.length > 0) throw nodesHeld(held);
  try {
    await manager.query(
      `INSERT INTO ${S}.node_claims (org, node, holder) SELECT $1, unnest($2::text[]), $3`,
      [org, nodes, holder],
    );
  } catch (error) {
    // Another rollout or upgrade took one of the nodes between the check and the insert.
    if ((error as { code?: string }).code === '23505')
      throw nodesHeld(nodes.map((node) => ({ node, holder: 'a rollout or upgrade being created' })));
    throw error;
  }
}

export async function releaseNodes(manager: EntityManager, holder: string): Promise<void> {
  await manager.query(`DELETE FROM ${S}.node_claims WHERE holder = $1`, [holder]);
}

export interface DrivableRollout {
  id: string;
  /** It has exchange commands left to carry out. */
  pending: boolean;
  /** A group is being prepared or deployed: its phase's statuses may be there to read. */
  underWay: boolean;
}

export class RolloutStore {
  /** What rollouts ask of the exchange, stored by the step that decides it (`rolloutHolder`). */
  readonly commands: CommandStore;

  constructor(private readonly dataSource: DataSource) {
    this.commands = new CommandStore(dataSource);
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(manager: EntityManager, record: RolloutRecord): Promise<void> {
    await manager.query(
      `INSERT INTO ${S}.rollouts (id, org, strategy, strategy_version, target_version, allow_downgrade, state,
                                  phase_timeout_seconds, document, plan, progress, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        record.id,
        record.org,
        record.strategy,
        record.strategyVersion,
        record.targetVersion,
        record.allowDowngrade,
        record.state,
        record.phaseTimeoutSeconds,
        JSON.stringify(record.document),
        JSON.stringify(record.plan),
        JSON.stringify(record.progress),
        record.createdBy,
      ],
    );
  }

  async get(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RolloutRecord | undefined> {
    const rows: RolloutRow[] = await manager.query(`SELECT * FROM ${S}.rollouts WHERE id = $1`, [id]);
    return rows[0] && toRecord(rows[0]);
  }

  /** The rollout, locked until the caller's transaction ends. */
  async lock(manager: EntityManager, id: string): Promise<RolloutRecord | undefined> {
    const rows: RolloutRow[] = await manager.query(`SELECT * FROM ${S}.rollouts WHERE id = $1 FOR UPDATE`, [
      id,
    ]);
    return rows[0] && toRecord(rows[0]);
  }

  async save(manager: EntityManager, record: RolloutRecord): Promise<void> {
    await manager.query(
      `UPDATE ${S}.rollouts SET state = $2, reason = $3, progress = $4, updated_at = now(), finished_at = $5
        WHERE id = $1`,
      [record.id, record.state, record.reason, JSON.stringify(record.progress), record.finishedAt],
    );
  }

  /** The org's rollouts, newest first, without their progress. */
  async list(org: string, limit: number): Promise<RolloutRecord[]> {
    const rows: RolloutRow[] = await this.dataSource.query(
      `SELECT * FROM ${S}.rollouts WHERE org = $1 ORDER BY created_at DESC LIMIT $2`,
      [org, limit],
    );
    return rows.map(toRecord);
  }

  /**
   * The rollouts the driver moves, oldest first: running, cancelling, or with exchange commands
   * left to carry out (held as `rolloutHolder` names them).
   */
  async drivable(): Promise<DrivableRollout[]> {
    const rows: { id: string; pending: boolean; under_way: boolean }[] = await this.dataSource.query(
      `WITH pending AS (SELECT DISTINCT holder FROM ${S}.exchange_commands WHERE done_at IS NULL)
       SELECT r.id, p.holder IS NOT NULL AS pending, r.progress->>'current' IS NOT NULL AS under_way
         FROM ${S}.rollouts r LEFT JOIN pending p ON p.holder = 'rollout ' || r.id
        WHERE r.state IN ('running', 'cancelling') OR p.holder IS NOT NULL
        ORDER BY r.created_at`,
    );
    return rows.map((row) => ({ id: row.id, pending: row.pending, underWay: row.under_way }));
  }

  async counts(): Promise<{ state: RolloutState; count: number }[]> {
    return this.dataSource.query(`SELECT state, count(*)::int AS count FROM ${S}.rollouts GROUP BY state`);
  }
}
