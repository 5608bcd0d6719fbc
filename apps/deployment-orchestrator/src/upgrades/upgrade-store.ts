/**
 * The history of single-node upgrades in SQL: one row per attempt. The driver locks a row
 * (FOR UPDATE) for each step it stores, and only for the database's work.
 */
import { type DataSource, type EntityManager } from 'typeorm';
import { CommandStore } from '../driver/command-store';
import { type UpgradeState } from './upgrade-states';

const S = 'deployment_orchestrator';

export interface UpgradeRecord {
  id: string;
  org: string;
  node_id: string;
  from_version: string | null;
  to_version: string;
  strategy: string;
  location: string | null;
  /** The request allowed a downgrade: its policy carries `allowDowngrade`. */
  allow_downgrade: boolean;
  state: UpgradeState;
  /** The last management status the node's agent reported. */
  status: string | null;
  error: string | null;
  policy: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** What a step changes of a row; `policy_removed_at` is when its policy's removal was carried out. */
export type UpgradeChange = Partial<
  Pick<UpgradeRecord, 'state' | 'status' | 'error' | 'started_at' | 'finished_at'> & {
    policy_removed_at: Date;
  }
>;

const COLUMNS = `id, org, node AS node_id, from_version, to_version, strategy, location, allow_downgrade, state, status, error, policy,
                 created_by, created_at, updated_at, started_at, finished_at`;

export class UpgradeStore {
  /** What upgrades ask of the exchange, stored by the step that decides it (`upgradeHolder`). */
  readonly commands: CommandStore;

  constructor(private readonly dataSource: DataSource) {
    this.commands = new CommandStore(dataSource);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(manager: EntityManager, upgrade: UpgradeRecord): Promise<void> {
    await manager.query(
      `INSERT INTO ${S}.upgrades (id, org, node, from_version, to_version, strategy, location, allow_downgrade, state,
                                  policy, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        upgrade.id,
        upgrade.org,
        upgrade.node_id,
        upgrade.from_version,
        upgrade.to_version,
        upgrade.strategy,
        upgrade.location,
        upgrade.allow_downgrade,
        upgrade.state,
        upgrade.policy,
        upgrade.created_by,
      ],
    );
  }

  async update(
    id: string,
    change: UpgradeChange,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    const fields = Object.keys(change);
    if (fields.length === 0) return;
    await manager.query(
      `UPDATE ${S}.upgrades SET ${fields.map((field, index) => `${field} = $${index + 2}`).join(', ')},
              updated_at = now() WHERE id = $1`,
      [id, ...Object.values(change)],
    );
  }

  /** The row, locked until the caller's transaction ends. */
  async lock(manager: EntityManager, id: string): Promise<UpgradeRecord | undefined> {
    const rows: UpgradeRecord[] = await manager.query(
      `SELECT ${COLUMNS} FROM ${S}.upgrades WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0];
  }

  async get(id: string): Promise<UpgradeRecord | undefined> {
    const rows: UpgradeRecord[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${S}.upgrades WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** The org's upgrades, newest first, of one node and in one state when given. */
  list(
    org: string,
    filter: { node?: string; state?: UpgradeState; limit: number },
  ): Promise<UpgradeRecord[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${S}.upgrades
        WHERE org = $1 AND ($2::text IS NULL OR node = $2) AND ($3::text IS NULL OR state = $3)
        ORDER BY created_at DESC LIMIT $4`,
      [org, filter.node ?? null, filter.state ?? null, filter.limit],
    );
  }

  /** Upgrades not over, and those over whose policy is still to be removed. */
  unfinished(): Promise<UpgradeRecord[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${S}.upgrades WHERE policy_removed_at IS NULL ORDER BY created_at`,
    );
  }
}
