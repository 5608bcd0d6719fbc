/** The history of single-node upgrades in SQL: one row per attempt. */
import { type DataSource, type EntityManager } from 'typeorm';
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

const COLUMNS = `id, org, node AS node_id, from_version, to_version, strategy, location, state, status, error, policy,
                 created_by, created_at, updated_at, started_at, finished_at`;

export class UpgradeStore {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(manager: EntityManager, upgrade: UpgradeRecord): Promise<void> {
    await manager.query(
      `INSERT INTO ${S}.upgrades (id, org, node, from_version, to_version, strategy, location, state, policy, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        upgrade.id,
        upgrade.org,
        upgrade.node_id,
        upgrade.from_version,
        upgrade.to_version,
        upgrade.strategy,
        upgrade.location,
        upgrade.state,
        upgrade.policy,
        upgrade.created_by,
      ],
    );
  }

  async update(
    id: string,
    change: Partial<Pick<UpgradeRecord, 'state' | 'status' | 'error' | 'started_at' | 'finished_at'>> & {
      policy_removed_at?: Date;
    },
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
