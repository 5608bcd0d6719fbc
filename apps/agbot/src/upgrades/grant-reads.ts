/**
 * What the semaphore's rows say, read as they are: a node's slots, a group's holders and halts,
 * the lapsed leases, the org's list. The grant store (grant-store.ts) adds the writes to these.
 *
 * It owns the reads that need no lock, each one statement in whatever transaction the caller
 * has. It never writes a row, takes a lock or opens a transaction, and nothing read here stands
 * in for a grant's own read, which the store takes under the group's lock.
 */
import { type EntityManager } from 'typeorm';
import {
  EXPIRED,
  fromJson,
  GROUP_OF_NODE,
  GROUPS,
  HALTS_IN,
  KNOWS_GROUP,
  LAST_RELEASED,
  LIST,
  OF_NODE,
  STRAYED_FROM,
  toGrant,
  type GrantRow,
  type GroupRow,
} from './grant-statements';
import { type GrantKey, type UpgradeGrant } from './upgrade-grant';

/** An HA group of the org, as the mirror knows its members, with what holds its slot. */
export interface GroupSlotState {
  haGroup: string;
  members: number;
  /** The slot's holders, a halted one first, then oldest first. */
  holders: UpgradeGrant[];
  /** The holders' management policies that the exchange no longer has (removed since). */
  removedPolicies: string[];
}

/** The store's reads; GrantStore adds the writes. */
export class GrantReads {
  /** When the node's agent-upgrade slot was last released, if ever. */
  async lastReleased(manager: EntityManager, org: string, node: string): Promise<Date | undefined> {
    const [row]: { at: Date | null }[] = await manager.query(LAST_RELEASED, [org, node]);
    return row?.at ?? undefined;
  }

  /** Every slot held by the node, whatever its kind or group. */
  async ofNode(manager: EntityManager, org: string, node: string): Promise<UpgradeGrant[]> {
    const rows = await OF_NODE.run<GrantRow[]>(manager, [org, node]);
    return rows.map(toGrant);
  }

  /**
   * Slots held for this group by nodes that the mirror no longer shows in it (moved elsewhere or
   * deleted). The mirror, not a group change's member list, is the judge: it applies node changes
   * only when they are newer than what it holds, so an old group change seen again cannot make a
   * member that joined since look like it left.
   */
  async strayedFrom(manager: EntityManager, org: string, haGroup: string): Promise<UpgradeGrant[]> {
    const rows: GrantRow[] = await manager.query(STRAYED_FROM, [org, haGroup]);
    return rows.map(toGrant);
  }

  async expired(manager: EntityManager, limit: number): Promise<GrantKey[]> {
    const rows: GrantRow[] = await manager.query(EXPIRED, [limit]);
    return rows.map((row) => ({ org: row.org, node: row.node, kind: row.holder_kind }));
  }

  async list(manager: EntityManager, org: string): Promise<(UpgradeGrant & { ageSeconds: number })[]> {
    const rows: (GrantRow & { age_seconds: string })[] = await manager.query(LIST, [org]);
    return rows.map((row) => ({ ...toGrant(row), ageSeconds: Number(row.age_seconds) }));
  }

  /**
   * The halted slots of the group (or only the member's, given `node`), with whether the mirror
   * still knows the policy each halt is for.
   */
  async haltsIn(
    manager: EntityManager,
    org: string,
    haGroup: string,
    node?: string,
  ): Promise<(UpgradeGrant & { policyRemoved: boolean })[]> {
    const rows: (GrantRow & { policy_removed: boolean })[] = await manager.query(HALTS_IN, [
      org,
      haGroup,
      node ?? null,
    ]);
    return rows.map((row) => ({ ...toGrant(row), policyRemoved: row.policy_removed }));
  }

  /**
   * The node's HA group as the mirror has it: null outside any group, undefined for a node the
   * mirror does not know.
   */
  async groupOf(manager: EntityManager, org: string, node: string): Promise<string | null | undefined> {
    const [row]: { ha_group: string | null }[] = await manager.query(GROUP_OF_NODE, [org, node]);
    return row ? row.ha_group : undefined;
  }

  /** Whether the group has a member the mirror knows, or a slot still held for it. */
  async knowsGroup(manager: EntityManager, org: string, haGroup: string): Promise<boolean> {
    const [row]: { known: boolean }[] = await manager.query(KNOWS_GROUP, [org, haGroup]);
    return row?.known === true;
  }

  /** The org's HA groups (as the mirror has their members) and what holds each one's slot. */
  async groups(manager: EntityManager, org: string): Promise<GroupSlotState[]> {
    const rows: GroupRow[] = await manager.query(GROUPS, [org]);
    return rows.map((row) => ({
      haGroup: row.ha_group,
      members: row.members,
      holders: (row.holders ?? []).map(fromJson),
      removedPolicies: row.removed_policies,
    }));
  }
}
