/**
 * The agbot's record of what it wants each node to run, and of its rollouts. A node's row is
 * written before the exchange is told (`published = false`) and marked once the exchange has
 * it, so a leader that dies in between leaves work its successor finds and finishes.
 */
import { NamedStatement } from '@careen/persistence';
import { type DataSource, type EntityManager } from 'typeorm';
import { type NodeWorkloads, type PlacedWorkloads } from './placement.types';

/** Read after every placement pass and every delivery: named, so planned once per connection. */
const UNPUBLISHED = new NamedStatement(
  'placement-unpublished',
  'SELECT org, node, workloads FROM agbot.node_workloads WHERE NOT published ORDER BY org, node',
);

/** A node's record as a reader outside the loop sees it. */
export type PlacedRecord = Pick<PlacedWorkloads, 'workloads' | 'schedulable'> & {
  published: boolean;
  updatedAt: Date;
};

export class PlacementStore {
  constructor(private readonly dataSource: DataSource) {}

  allWorkloads(): Promise<PlacedWorkloads[]> {
    return this.dataSource.query(
      'SELECT org, node, workloads, schedulable FROM agbot.node_workloads ORDER BY org, node',
    );
  }

  /** The node's record, and whether the exchange has it; undefined when nothing was ever placed there. */
  async placedOn(org: string, node: string): Promise<PlacedRecord | undefined> {
    const [row]: PlacedRecord[] = await this.dataSource.query(
      `SELECT workloads, schedulable, published, updated_at AS "updatedAt"
       FROM agbot.node_workloads WHERE org = $1 AND node = $2`,
      [org, node],
    );
    return row;
  }

  async unpublished(): Promise<NodeWorkloads[]> {
    const rows = await UNPUBLISHED.run<
      { org: string; node: string; workloads: NodeWorkloads['workloads'] }[]
    >(this.dataSource, []);
    return rows.map((row) => ({ org: row.org, node: row.node, workloads: row.workloads }));
  }

  async save(manager: EntityManager, changed: readonly PlacedWorkloads[]): Promise<void> {
    if (changed.length === 0) return;
    await manager.query(
      `INSERT INTO agbot.node_workloads (org, node, workloads, schedulable, published, updated_at)
       SELECT org, node, workloads, schedulable, false, now()
       FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::boolean[]) AS s(org, node, workloads, schedulable)
       ON CONFLICT (org, node) DO UPDATE SET workloads = EXCLUDED.workloads, schedulable = EXCLUDED.schedulable,
         published = false, updated_at = now()`,
      [
        changed.map((each) => each.org),
        changed.map((each) => each.node),
        changed.map((each) => JSON.stringify(each.workloads)),
        changed.map((each) => each.schedulable),
      ],
    );
  }

  /** Marks nodes' workloads as delivered, unless they changed again meanwhile. */
  async markPublished(entries: readonly NodeWorkloads[]): Promise<void> {
    if (entries.length === 0) return;
    await this.dataSource.query(
      `UPDATE agbot.node_workloads w SET published = true
       FROM unnest($1::text[], $2::text[], $3::jsonb[]) AS d(org, node, workloads)
       WHERE w.org = d.org AND w.node = d.node AND w.workloads = d.workloads`,
      [
        entries.map((entry) => entry.org),
        entries.map((entry) => entry.node),
        entries.map((entry) => JSON.stringify(entry.workloads)),
      ],
    );
  }

  /** A node deleted from the exchange needs nothing delivered any more. */
  async forget(org: string, node: string): Promise<void> {
    await this.dataSource.query('DELETE FROM agbot.node_workloads WHERE org = $1 AND node = $2', [org, node]);
  }

  async rolloutStates<T>(): Promise<{ org: string; deploymentPolicy: string; state: T }[]> {
    const rows: { org: string; deployment_policy: string; state: T }[] = await this.dataSource.query(
      'SELECT org, deployment_policy, state FROM agbot.rollouts ORDER BY org, deployment_policy',
    );
    return rows.map((row) => ({ org: row.org, deploymentPolicy: row.deployment_policy, state: row.state }));
  }

  /** Rollouts still under way in one org, with the planner's last report of each. */
  async rolloutReports<R>(org: string): Promise<{ deploymentPolicy: string; report: R; updatedAt: Date }[]> {
    const rows: { deployment_policy: string; report: R; updated_at: Date }[] = await this.dataSource.query(
      'SELECT deployment_policy, report, updated_at FROM agbot.rollouts WHERE org = $1 ORDER BY deployment_policy',
      [org],
    );
    return rows.map((row) => ({
      deploymentPolicy: row.deployment_policy,
      report: row.report,
      updatedAt: row.updated_at,
    }));
  }

  /** Keeps a rollout's state and report; without a state the rollout is over and its row goes. */
  async saveRollout(
    manager: EntityManager,
    org: string,
    deploymentPolicy: string,
    rollout: { state: object; report: object } | undefined,
  ): Promise<void> {
    if (rollout === undefined) {
      await manager.query('DELETE FROM agbot.rollouts WHERE org = $1 AND deployment_policy = $2', [
        org,
        deploymentPolicy,
      ]);
      return;
    }
    await manager.query(
      `INSERT INTO agbot.rollouts (org, deployment_policy, state, report, updated_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (org, deployment_policy) DO UPDATE SET state = EXCLUDED.state, report = EXCLUDED.report, updated_at = now()`,
      [org, deploymentPolicy, JSON.stringify(rollout.state), JSON.stringify(rollout.report)],
    );
  }
}
