/**
 * The instance groups the maintenance service tells of (InstanceGroupDeclared), kept in the
 * agbot's schema: placement reads their per-host limits, the disruption gate their budgets of
 * impacted instances, both through `agbot.instance_group_members` (a group's policies that are
 * its own project's). Applying a state is idempotent and keeps the highest revision, so a
 * redelivered or late one changes nothing.
 */
import { type InstanceGroupPayload } from '@careen/contracts';
import { type DataSource } from 'typeorm';
import { type InstanceGroupRule } from '../placement/placement.types';

export class InstanceGroupStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Keeps the state unless a newer one is kept already; answers whether it was kept. */
  async apply(state: InstanceGroupPayload): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO agbot.instance_groups AS g
         (org, group_id, project, anti_affinity, max_per_host, max_impacted, policies, removed, revision,
          recovery_seconds)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (org, group_id) DO UPDATE SET project = $3, anti_affinity = $4, max_per_host = $5,
         max_impacted = $6, policies = $7, removed = $8, revision = $9, recovery_seconds = $10,
         updated_at = now()
       WHERE g.revision < $9
       RETURNING revision`,
      [
        state.org,
        state.groupId,
        state.project,
        state.antiAffinity,
        state.maxPerHost,
        state.maxImpacted,
        state.policies,
        state.removed,
        state.revision,
        state.recoverySeconds,
      ],
    )) as unknown[];
    return rows.length > 0;
  }

  /**
   * The groups that limit how many of their instances one host holds (anti-affinity: one), with
   * their members, ordered.
   */
  async placementRules(): Promise<InstanceGroupRule[]> {
    return (await this.dataSource.query(
      `SELECT org, group_id AS id, array_agg(policy ORDER BY policy) AS policies,
              CASE WHEN anti_affinity THEN 1 ELSE max_per_host END AS "perHost"
         FROM agbot.instance_group_members
        WHERE anti_affinity OR max_per_host > 0
        GROUP BY org, group_id, anti_affinity, max_per_host
        ORDER BY org, group_id`,
    )) as InstanceGroupRule[];
  }
}
