/**
 * Tells the agbot each instance group's whole state (InstanceGroupDeclared), through the outbox
 * in the transaction that changed it, so that placement and the disruption gate act on what a
 * project declared. Every state gets the next number of one sequence while the group's row is
 * locked, so of two states of a group the later-numbered one holds every change committed before
 * it; the agbot keeps the highest. At start every group is told again, which makes good a state
 * lost to a crash between a commit and its publication or aged out of the stream.
 */
import { InstanceGroupDeclared, type InstanceGroupPayload, policyOfInstance } from '@careen/contracts';
import { type OutboxWriter } from '@careen/persistence';
import { type DataSource, type EntityManager } from 'typeorm';

const S = 'maintenance_session';

interface GroupRow {
  project: string;
  anti_affinity_group: boolean;
  max_instances_per_host: number;
  max_impacted_members: number;
  recovery_time: number;
  revision: string;
}

export class GroupAnnouncer {
  constructor(private readonly outbox: OutboxWriter) {}

  /**
   * Locks the groups' rows in id order (so that two transactions never wait on each other in a
   * cycle): a transaction that changes a group's members takes this before reading the group.
   * Answers the project of each group that is declared.
   */
  async lock(
    manager: EntityManager,
    org: string,
    groups: Iterable<string | null>,
  ): Promise<Map<string, string>> {
    const rows = (await manager.query(
      `SELECT group_id, project FROM ${S}.instance_groups WHERE org = $1 AND group_id = ANY($2)
        ORDER BY group_id FOR UPDATE`,
      [org, idsOf(groups)],
    )) as { group_id: string; project: string }[];
    return new Map(rows.map((row) => [row.group_id, row.project]));
  }

  /**
   * Tells the groups' states as `manager`'s transaction leaves them, locking each group's row. A
   * group removed meanwhile is skipped: its removal told the agbot in its own transaction.
   */
  async announce(manager: EntityManager, org: string, groups: Iterable<string | null>): Promise<void> {
    for (const groupId of idsOf(groups)) {
      const state = await stateOf(manager, org, groupId);
      if (state) await this.outbox.append(manager, InstanceGroupDeclared, [org], state);
    }
  }

  /** Tells that the group of `project` was removed (its row deleted in `manager`'s transaction). */
  async announceRemoval(
    manager: EntityManager,
    org: string,
    groupId: string,
    project: string,
  ): Promise<void> {
    const [{ revision }] = (await manager.query(
      `SELECT nextval('${S}.instance_group_revisions')::text AS revision`,
    )) as [{ revision: string }];
    await this.outbox.append(manager, InstanceGroupDeclared, [org], {
      org,
      groupId,
      project,
      antiAffinity: false,
      maxPerHost: 0,
      maxImpacted: 1,
      recoverySeconds: 0,
      policies: [],
      removed: true,
      revision: Number(revision),
    });
  }

  /** Tells every group again (at start), one transaction per org. */
  async announceAll(dataSource: DataSource): Promise<number> {
    const rows = (await dataSource.query(
      `SELECT org, array_agg(group_id ORDER BY group_id) AS groups FROM ${S}.instance_groups GROUP BY org ORDER BY org`,
    )) as { org: string; groups: string[] }[];
    for (const { org, groups } of rows)
      await dataSource.transaction((manager) => this.announce(manager, org, groups));
    return rows.reduce((sum, row) => sum + row.groups.length, 0);
  }
}

function idsOf(groups: Iterable<string | null>): string[] {
  return [...new Set([...groups].filter((id): id is string => id !== null))].sort();
}

/** The group's state now, numbered; undefined when it is no longer declared. */
async function stateOf(
  manager: EntityManager,
  org: string,
  groupId: string,
): Promise<InstanceGroupPayload | undefined> {
  const [group] = (await manager.query(
    `SELECT project, anti_affinity_group, max_instances_per_host, max_impacted_members, recovery_time,
            nextval('${S}.instance_group_revisions')::text AS revision
       FROM ${S}.instance_groups WHERE org = $1 AND group_id = $2 FOR UPDATE`,
    [org, groupId],
  )) as GroupRow[];
  if (!group) return undefined;
  // Read after the lock: every instance committed before it is counted.
  const members = (await manager.query(
    `SELECT instance_id FROM ${S}.instance_constraints WHERE org = $1 AND group_id = $2 AND project = $3`,
    [org, groupId, group.project],
  )) as { instance_id: string }[];
  const policies = new Set(members.flatMap(({ instance_id }) => policyOfInstance(instance_id) ?? []));
  return {
    org,
    groupId,
    project: group.project,
    antiAffinity: group.anti_affinity_group,
    maxPerHost: group.max_instances_per_host,
    maxImpacted: group.max_impacted_members,
    recoverySeconds: group.recovery_time,
    policies: [...policies].sort(),
    removed: false,
    revision: Number(group.revision),
  };
}
