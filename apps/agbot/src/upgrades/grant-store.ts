/**
 * The semaphore's rows. Grants and releases are the functions of the upgrade-grants migration
 * (one round trip each, with their history rows and outbox events in the same transaction);
 * this class calls them, tells the outbox writer that events were written, and reads holders.
 */
import {
  UpgradeGranted,
  UpgradeReleased,
  type EventDefinition,
  type UpgradeHolderKind,
  type UpgradeReleaseReason,
} from '@careen/contracts';
import { type OutboxWriter } from '@careen/persistence';
import { type EntityManager } from 'typeorm';
import { type UpgradeGrant } from './upgrade-grant';

interface GrantRow {
  org: string;
  node: string;
  holder_kind: UpgradeHolderKind;
  ha_group: string | null;
  management_policy: string | null;
  granted_at: Date;
  lease_expires_at: Date;
}

interface AcquireRow extends GrantRow {
  row_kind: 'released' | 'answer';
  outcome: 'granted' | 'renewed' | 'refused' | 'unknown-node' | null;
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
  | { outcome: 'unknown-node' }
) & { released: ReleasedGrant[] };

const COLUMNS = 'org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at';

function toGrant(row: GrantRow): UpgradeGrant {
  return {
    org: row.org,
    node: row.node,
    kind: row.holder_kind,
    haGroup: row.ha_group,
    managementPolicy: row.management_policy,
    grantedAt: row.granted_at,
    leaseExpiresAt: row.lease_expires_at,
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
   * only if still held and, for `lease-expired`, only if its lease has still run out.
   */
  async release(
    manager: EntityManager,
    keys: readonly GrantKey[],
    reason: UpgradeReleaseReason,
    only: { managementPolicy?: string; notInGroup?: string | null } = {},
  ): Promise<ReleasedGrant[]> {
    const ordered = [...keys].sort((a, b) =>
      `${a.org}\u0000${a.node}\u0000${a.kind}`.localeCompare(`${b.org}\u0000${b.node}\u0000${b.kind}`),
    );
    const released: ReleasedGrant[] = [];
    for (const key of ordered) {
      const rows: (GrantRow & { released_at: Date })[] = await manager.query(
        'SELECT * FROM agbot.release_upgrade_slot($1, $2, $3, $4, $5, $6, $7, $8, $9)',
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
        ],
      );
      released.push(...rows.map((row) => toReleased({ ...row, reason })));
    }
    if (released.length > 0) this.outbox.written(manager);
    return released;
  }

  /** Every slot held by the node, whatever its kind or group. */
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
      `SELECT ${COLUMNS} FROM agbot.upgrade_grants WHERE lease_expires_at <= clock_timestamp()
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
