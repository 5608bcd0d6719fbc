/**
 * The semaphore's rows. Grants and releases are the functions of the upgrade-grants and
 * upgrade-halts migrations (one round trip each, with their history rows and outbox events in
 * the same transaction); this class calls them, tells the outbox writer that events were
 * written, halts a failed member's group, and reads holders and groups.
 */
import {
  UpgradeGranted,
  UpgradeHalted,
  UpgradeReleased,
  type EventDefinition,
  type UpgradeHolderKind,
  type UpgradeReleaseReason,
} from '@careen/contracts';
import { type OutboxWriter } from '@careen/persistence';
import { type EntityManager } from 'typeorm';
import { grantPayload, type UpgradeGrant } from './upgrade-grant';

interface GrantRow {
  org: string;
  node: string;
  holder_kind: UpgradeHolderKind;
  ha_group: string | null;
  management_policy: string | null;
  granted_at: Date;
  lease_expires_at: Date;
  halted_at: Date | null;
  halt_error: string | null;
}

interface AcquireRow extends GrantRow {
  row_kind: 'released' | 'answer';
  outcome: 'granted' | 'renewed' | 'refused' | 'unknown-node' | 'policy-stopped' | null;
  semaphore_group: string | null;
  reason: UpgradeReleaseReason | null;
  released_at: Date | null;
}

export interface ReleasedGrant extends UpgradeGrant {
  reason: UpgradeReleaseReason;
  releasedAt: Date;
}

export interface GrantKey {
  org: string;
  node: string;
  kind: UpgradeHolderKind;
}

/** Which slots a release may take; by default any held one that is not halted. */
export interface ReleaseConditions {
  managementPolicy?: string;
  notInGroup?: string | null;
  /** Release a halted slot too (its holder is healthy again, was reset, left or was deleted). */
  haltedToo?: boolean;
}

export interface SlotRequest {
  org: string;
  node: string;
  kind: UpgradeHolderKind;
  managementPolicy: string | null;
  leaseSeconds: number;
  /** FleetLock holders a group admits at once. */
  fleetLockSlots: number;
}

/** What one call of acquire_upgrade_slot did. */
export type SlotAnswer = (
  | { outcome: 'granted' | 'renewed' | 'refused'; haGroup: string | null; grant: UpgradeGrant }
  | { outcome: 'unknown-node' | 'policy-stopped' }
) & { released: ReleasedGrant[] };

/** A member that failed and is not healthy again, as the monitor learns of it. */
export interface HaltRequest {
  org: string;
  node: string;
  managementPolicy: string;
  error: string | null;
}

/** An HA group of the org, as the mirror knows its members, with what holds its slot. */
export interface GroupSlotState {
  haGroup: string;
  members: number;
  /** The slot's holders, a halted one first, then oldest first. */
  holders: UpgradeGrant[];
}

const COLUMNS =
  'org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at, halted_at, halt_error';

function toGrant(row: GrantRow): UpgradeGrant {
  return {
    org: row.org,
    node: row.node,
    kind: row.holder_kind,
    haGroup: row.ha_group,
    managementPolicy: row.management_policy,
    grantedAt: row.granted_at,
    leaseExpiresAt: row.lease_expires_at,
    haltedAt: row.halted_at,
    haltError: row.halt_error,
  };
}

/** A subject as `[before, between, after]` around org and node, as the SQL functions assemble it. */
function subjectParts(event: EventDefinition<object, readonly [string, string]>): [string, string, string] {
  const [before, rest] = event.subject('ORG', 'NODE').split('ORG') as [string, string];
  const [between, after] = rest.split('NODE') as [string, string];
  return [before, between, after];
}

const GRANTED = { type: UpgradeGranted.type, subject: subjectParts(UpgradeGranted) };
const RELEASED = { type: UpgradeReleased.type, subject: subjectParts(UpgradeReleased) };

export class GrantStore {
  constructor(private readonly outbox: OutboxWriter) {}

  /**
   * Renews, grants or refuses a slot, in one statement (its own transaction when the manager has
   * none), releasing on the way the slots whose lease ran out or whose group is no longer theirs.
   */
  async acquire(manager: EntityManager, request: SlotRequest): Promise<SlotAnswer> {
    const rows: AcquireRow[] = await manager.query(
      'SELECT * FROM agbot.acquire_upgrade_slot($1, $2, $3, $4, $5, $6, $7)',
      [
        request.org,
        request.node,
        request.kind,
        request.managementPolicy,
        request.leaseSeconds,
        request.fleetLockSlots,
        this.events(),
      ],
    );
    const released = rows.filter((row) => row.row_kind === 'released').map(toReleased);
    const answer = rows.find((row) => row.row_kind === 'answer')!;
    if (answer.outcome === 'granted' || released.length > 0) this.outbox.written(manager);
    if (answer.outcome === 'unknown-node' || answer.outcome === null)
      return { outcome: 'unknown-node', released };
    if (answer.outcome === 'policy-stopped') return { outcome: 'policy-stopped', released };
    return { outcome: answer.outcome, haGroup: answer.semaphore_group, grant: toGrant(answer), released };
  }

  /** Extends a held slot's lease from now; undefined when the slot is no longer held. */
  async renew(
    manager: EntityManager,
    key: GrantKey,
    leaseSeconds: number,
    managementPolicy?: string,
  ): Promise<UpgradeGrant | undefined> {
    // An UPDATE answers [rows, count].
    const [rows] = (await manager.query(
      `UPDATE agbot.upgrade_grants
       SET lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $4)
       WHERE org = $1 AND node = $2 AND holder_kind = $3 AND ($5::text IS NULL OR management_policy = $5)
       RETURNING ${COLUMNS}`,
      [key.org, key.node, key.kind, leaseSeconds, managementPolicy ?? null],
    )) as [GrantRow[], number];
    return rows[0] ? toGrant(rows[0]) : undefined;
  }

  /**
   * Releases the given slots, one at a time in key order (so two releasers never deadlock), each
   * only if still held and, for `lease-expired`, only if its lease has still run out. A halted
   * slot is released only with `haltedToo`.
   */
  async release(
    manager: EntityManager,
    keys: readonly GrantKey[],
    reason: UpgradeReleaseReason,
    only: ReleaseConditions = {},
  ): Promise<ReleasedGrant[]> {
    const ordered = [...keys].sort((a, b) =>
      `${a.org}\u0000${a.node}\u0000${a.kind}`.localeCompare(`${b.org}\u0000${b.node}\u0000${b.kind}`),
    );
    const released: ReleasedGrant[] = [];
    for (const key of ordered) {
      const rows: (GrantRow & { released_at: Date })[] = await manager.query(
        'SELECT * FROM agbot.release_upgrade_slot($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [
          key.org,
          key.node,
          key.kind,
          reason,
          this.events(),
          reason === 'lease-expired',
          only.managementPolicy ?? null,
          only.notInGroup !== undefined,
          only.notInGroup ?? null,
          only.haltedToo ?? false,
        ],
      );
      released.push(...rows.map((row) => toReleased({ ...row, reason })));
    }
    if (released.length > 0) this.outbox.written(manager);
    return released;
  }

  /**
   * Halts the member's group: its agent-upgrade slot, held or taken now (even while a peer holds
   * one: the member is down either way), gets no lease end until it is healthy again or reset.
   * Under the group's advisory lock, like a grant, so the history keeps the order slots were held.
   * Returns the halted slot, or undefined when the node is unknown to the mirror.
   */
  async halt(manager: EntityManager, request: HaltRequest): Promise<UpgradeGrant | undefined> {
    const [node]: { ha_group: string | null }[] = await manager.query(
      'SELECT ha_group FROM agbot.nodes WHERE org = $1 AND id = $2 FOR SHARE',
      [request.org, request.node],
    );
    if (!node) return undefined;
    await manager.query('SELECT pg_advisory_xact_lock(agbot.upgrade_lock_key($1, $2))', [
      request.org,
      node.ha_group ?? `node:${request.node}`,
    ]);
    const [existing]: GrantRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM agbot.upgrade_grants
       WHERE org = $1 AND node = $2 AND holder_kind = 'agent-upgrade' FOR UPDATE`,
      [request.org, request.node],
    );
    const params = [request.org, request.node, request.managementPolicy, request.error, node.ha_group];
    // An UPDATE answers [rows, count], an INSERT its rows.
    const halted = existing
      ? (
          (await manager.query(
            `UPDATE agbot.upgrade_grants
           SET halted_at = coalesce(halted_at, date_trunc('milliseconds', clock_timestamp())),
               halt_error = $4, management_policy = $3, ha_group = $5
           WHERE org = $1 AND node = $2 AND holder_kind = 'agent-upgrade'
           RETURNING ${COLUMNS}`,
            params,
          )) as [GrantRow[], number]
        )[0][0]
      : (
          (await manager.query(
            `WITH t AS (SELECT date_trunc('milliseconds', clock_timestamp()) AS now)
           INSERT INTO agbot.upgrade_grants (org, node, holder_kind, ha_group, management_policy,
             granted_at, lease_expires_at, halted_at, halt_error)
           SELECT $1, $2, 'agent-upgrade', $5, $3, now, now, now, $4 FROM t
           RETURNING ${COLUMNS}`,
            params,
          )) as GrantRow[]
        )[0];
    const grant = toGrant(halted!);
    // Already halted: the latest error is noted, the halt itself is not news.
    if (existing?.halted_at) return grant;
    if (!existing) {
      await this.recordHistory(manager, halted!, 'granted');
      await this.outbox.append(manager, UpgradeGranted, [grant.org, grant.node], grantPayload(grant));
    }
    await this.recordHistory(manager, halted!, 'halted', request.error);
    await this.outbox.append(manager, UpgradeHalted, [grant.org, grant.node], {
      ...grantPayload(grant),
      haltedAt: grant.haltedAt!.toISOString(),
      error: grant.haltError,
    });
    return grant;
  }

  /** When the node's agent-upgrade slot was last released, if ever. */
  async lastReleased(manager: EntityManager, org: string, node: string): Promise<Date | undefined> {
    const [row]: { at: Date | null }[] = await manager.query(
      `SELECT max(at) AS at FROM agbot.upgrade_grant_history
       WHERE org = $1 AND node = $2 AND holder_kind = 'agent-upgrade' AND event = 'released'`,
      [org, node],
    );
    return row?.at ?? undefined;
  }

  /**
   * A heartbeat of the holder renews its agent-upgrade lease, unless the lease was renewed since
   * that heartbeat (a change replayed late, or one that only carries an old heartbeat along).
   */
  async renewOnHeartbeat(
    manager: EntityManager,
    org: string,
    node: string,
    heartbeat: Date,
    leaseSeconds: number,
  ): Promise<void> {
    await manager.query(
      `UPDATE agbot.upgrade_grants
       SET lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $3)
       WHERE org = $1 AND node = $2 AND holder_kind = 'agent-upgrade'
         AND lease_expires_at - make_interval(secs => $3) < $4`,
      [org, node, leaseSeconds, heartbeat],
    );
  }

  /** Every slot held by the node, whatever its kind or group. */
  async ofNode(manager: EntityManager, org: string, node: string): Promise<UpgradeGrant[]> {
    const rows: GrantRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM agbot.upgrade_grants WHERE org = $1 AND node = $2`,
      [org, node],
    );
    return rows.map(toGrant);
  }

  /**
   * Slots held for this group by nodes that the mirror no longer shows in it (moved elsewhere or
   * deleted). The mirror, not a group change's member list, is the judge: it applies node changes
   * only when they are newer than what it holds, so an old group change seen again cannot make a
   * member that joined since look like it left.
   */
  async strayedFrom(manager: EntityManager, org: string, haGroup: string): Promise<UpgradeGrant[]> {
    const rows: GrantRow[] = await manager.query(
      `SELECT ${COLUMNS.split(', ')
        .map((column) => `g.${column}`)
        .join(', ')}
       FROM agbot.upgrade_grants AS g
       LEFT JOIN agbot.nodes AS n ON n.org = g.org AND n.id = g.node
       WHERE g.org = $1 AND g.ha_group = $2 AND n.ha_group IS DISTINCT FROM g.ha_group`,
      [org, haGroup],
    );
    return rows.map(toGrant);
  }

  async expired(manager: EntityManager, limit: number): Promise<GrantKey[]> {
    const rows: GrantRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM agbot.upgrade_grants
       WHERE lease_expires_at <= clock_timestamp() AND halted_at IS NULL
       ORDER BY lease_expires_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ org: row.org, node: row.node, kind: row.holder_kind }));
  }

  async list(manager: EntityManager, org: string): Promise<(UpgradeGrant & { ageSeconds: number })[]> {
    const rows: (GrantRow & { age_seconds: string })[] = await manager.query(
      `SELECT ${COLUMNS}, floor(extract(epoch FROM clock_timestamp() - granted_at))::text AS age_seconds
       FROM agbot.upgrade_grants WHERE org = $1 ORDER BY granted_at, node, holder_kind`,
      [org],
    );
    return rows.map((row) => ({ ...toGrant(row), ageSeconds: Number(row.age_seconds) }));
  }

  /** The org's HA groups (as the mirror has their members) and what holds each one's slot. */
  async groups(manager: EntityManager, org: string): Promise<GroupSlotState[]> {
    const rows: { ha_group: string; members: number; holders: GrantRow[] | null }[] = await manager.query(
      `SELECT n.ha_group, count(*)::int AS members,
              (SELECT json_agg(g ORDER BY g.halted_at IS NULL, g.granted_at, g.node)
               FROM agbot.upgrade_grants AS g WHERE g.org = $1 AND g.ha_group = n.ha_group) AS holders
       FROM agbot.nodes AS n
       WHERE n.org = $1 AND n.ha_group IS NOT NULL
       GROUP BY n.ha_group ORDER BY n.ha_group`,
      [org],
    );
    return rows.map((row) => ({
      haGroup: row.ha_group,
      members: row.members,
      holders: (row.holders ?? []).map((holder) =>
        toGrant({
          ...holder,
          granted_at: new Date(holder.granted_at),
          lease_expires_at: new Date(holder.lease_expires_at),
          halted_at: holder.halted_at ? new Date(holder.halted_at) : null,
        }),
      ),
    }));
  }

  private async recordHistory(
    manager: EntityManager,
    grant: GrantRow,
    event: 'granted' | 'halted',
    reason: string | null = null,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO agbot.upgrade_grant_history
         (org, node, holder_kind, ha_group, management_policy, event, reason, granted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        grant.org,
        grant.node,
        grant.holder_kind,
        grant.ha_group,
        grant.management_policy,
        event,
        reason,
        grant.granted_at,
      ],
    );
  }

  /** The outbox rows' types, subjects and headers, for the SQL functions to write. */
  private events(): string {
    return JSON.stringify({ granted: GRANTED, released: RELEASED, headers: this.outbox.headers() });
  }
}

function toReleased(
  row: GrantRow & { reason: UpgradeReleaseReason | null; released_at: Date | null },
): ReleasedGrant {
  return { ...toGrant(row), reason: row.reason!, releasedAt: row.released_at! };
}
