/**
 * Strategies in SQL: every version kept, numbered from 1 per org and name. Publishing a document
 * equal to the newest version stores nothing new.
 */
import { type AuditTrail } from '@careen/service';
import { type DataSource } from 'typeorm';
import { type DeploymentStrategy } from '@careen/contracts';

const S = 'deployment_orchestrator';

export interface StoredStrategy {
  org: string;
  name: string;
  version: number;
  document: DeploymentStrategy;
  createdBy: string;
  createdAt: Date;
}

interface StrategyRow {
  org: string;
  name: string;
  version: number;
  document: DeploymentStrategy;
  created_by: string;
  created_at: Date;
}

const toStored = (row: StrategyRow): StoredStrategy => ({
  org: row.org,
  name: row.name,
  version: row.version,
  document: row.document,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

/** Jsonb comparison in SQL ignores key order; the same strategy sent twice is one version. */
export class StrategyStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: Pick<AuditTrail, 'record'>,
  ) {}

  /** Stores the document as the next version, unless it equals the newest; answers what is stored. */
  publish(
    org: string,
    document: DeploymentStrategy,
    createdBy: string,
  ): Promise<{ stored: StoredStrategy; created: boolean }> {
    return this.dataSource.transaction(async (manager) => {
      // One publisher of a name at a time, so two never take the same version number.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`strategy:${org}/${document.name}`]);
      const [newest]: StrategyRow[] = await manager.query(
        `SELECT * FROM ${S}.strategies WHERE org = $1 AND name = $2 ORDER BY version DESC LIMIT 1`,
        [org, document.name],
      );
      if (newest) {
        const [result]: { same: boolean }[] = await manager.query(`SELECT $1::jsonb = $2::jsonb AS same`, [
          JSON.stringify(newest.document),
          JSON.stringify(document),
        ]);
        if (result?.same) return { stored: toStored(newest), created: false };
      }
      const [row]: StrategyRow[] = await manager.query(
        `INSERT INTO ${S}.strategies (org, name, version, document, created_by)
         VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [org, document.name, (newest?.version ?? 0) + 1, JSON.stringify(document), createdBy],
      );
      await this.audit.record(manager, {
        org,
        action: 'strategy.published',
        target: `strategy/${document.name}@${row!.version}`,
      });
      return { stored: toStored(row!), created: true };
    });
  }

  /** The given version, or the newest. */
  async get(org: string, name: string, version?: number): Promise<StoredStrategy | undefined> {
    const rows: StrategyRow[] = await this.dataSource.query(
      `SELECT * FROM ${S}.strategies WHERE org = $1 AND name = $2 AND ($3::int IS NULL OR version = $3)
       ORDER BY version DESC LIMIT 1`,
      [org, name, version ?? null],
    );
    return rows[0] && toStored(rows[0]);
  }

  /** The newest version of each of the org's strategies, by name. */
  async list(org: string): Promise<StoredStrategy[]> {
    const rows: StrategyRow[] = await this.dataSource.query(
      `SELECT DISTINCT ON (name) * FROM ${S}.strategies WHERE org = $1 ORDER BY name, version DESC`,
      [org],
    );
    return rows.map(toStored);
  }
}
