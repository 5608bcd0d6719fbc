/**
 * The semaphore's rows. Postgres is the lock: a grant share-locks the node's mirror row (its
 * group cannot change meanwhile), takes the group's transaction-scoped advisory lock, reads the
 * slots held in the group, and carries out what the rule (slot-rule.ts) decides, in one
 * transaction with the history rows and outbox events of every grant and release. Releases take
 * no lock: a release stamps its history row before it commits, and a grant that sees the slot
 * free stamps after that commit, so the history's order is the order in which slots were held.
 */
import {
  UpgradeGranted,
  type UpgradeGrantPayload,
  UpgradeHalted,
  UpgradeReleased,
  type UpgradeReleasedPayload,
  type UpgradeHolderKind,
  type UpgradeReleaseReason,
} from '@careen/contracts';
import { isoTime, jsonObject, NamedStatement, type OutboxWriter, type SqlFields } from '@careen/persistence';
import { type EntityManager } from 'typeorm';
import { decideSlot, type SlotQuestion, type SlotVerdict } from './slot-rule';
import {
  BatchStatement,
  literal,
  withStatementBatch,
  type BatchCall,
  type StatementBatch,
} from './statement-batch';
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
  /** Release only a halted slot: an admin's reset must not take a slot its holder took again meanwhile. */
  haltedOnly?: boolean;
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

/** What a call of acquire did: the answer, and the slots it released on the way. */
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
  /**
   * When the node reported the failure. A slot taken for it counts as granted from then: the
   * healthy status that followed the failure ends the halt, even when it was written before
   * the monitor saw the failure.
   */
  failedAt: Date;
}

/** An HA group of the org, as the mirror knows its members, with what holds its slot. */
export interface GroupSlotState {
  haGroup: string;
  members: number;
  /** The slot's holders, a halted one first, then oldest first. */
  holders: UpgradeGrant[];
  /** The holders' management policies that the exchange no longer has (removed since). */
  removedPolicies: string[];
}

const COLUMNS =
  'org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at, halted_at, halt_error';

/**
 * Whether the slot (`grant`, a row of agbot.upgrade_grants) is for a management policy the
 * mirror no longer has: a halt outlives its policy until an admin resets it.
 */
const POLICY_REMOVED = (grant: string) =>
  `(${grant}.management_policy IS NOT NULL AND NOT EXISTS (
     SELECT 1 FROM agbot.mirrored_resources AS m
     WHERE m.org = ${grant}.org AND m.resource = 'managementPolicy' AND m.id = ${grant}.management_policy))`;

/** Sent for most statuses a fleet reports, and for every renewal: named, so planned once per connection. */
const RENEW = new NamedStatement(
  'upgrade-grant-renew',
  `UPDATE agbot.upgrade_grants
   SET lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $4)
   WHERE org = $1 AND node = $2 AND holder_kind = $3 AND ($5::text IS NULL OR management_policy = $5)
   RETURNING ${COLUMNS}`,
);
const RENEW_ON_HEARTBEAT = new NamedStatement(
  'upgrade-grant-renew-on-heartbeat',
  `WITH free AS (
     SELECT org, node, holder_kind FROM agbot.upgrade_grants
     WHERE org = $1 AND node = ANY($2) AND holder_kind = 'agent-upgrade'
       AND lease_expires_at - make_interval(secs => $3) < $4
     FOR NO KEY UPDATE SKIP LOCKED
   )
   UPDATE agbot.upgrade_grants g
   SET lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $3)
   FROM free WHERE g.org = free.org AND g.node = free.node AND g.holder_kind = free.holder_kind`,
);
const OF_NODE = new NamedStatement(
  'upgrade-grants-of-node',
  `SELECT ${COLUMNS} FROM agbot.upgrade_grants WHERE org = $1 AND node = $2`,
);

/** The node's group as its (share-locked) mirror row has it; $1 the org, $2 the node. */
const GROUP_OF = '(SELECT ha_group FROM agbot.nodes WHERE org = $1 AND id = $2)';

// A grant's statements, sent in two batches (see acquire); $1 the org, $2 the node throughout.

/** Share-locks the node's mirror row: its group cannot change until the commit. */
const NODE_GROUP = new BatchStatement(
  'upgrade-slot-node',
  'SELECT ha_group FROM agbot.nodes WHERE org = $1 AND id = $2 FOR SHARE',
);
/** The group's semaphore, or the node's own when it is in no group. */
const LOCK_GROUP = new BatchStatement(
  'upgrade-slot-lock',
  `SELECT pg_advisory_xact_lock(agbot.upgrade_lock_key($1, coalesce(${GROUP_OF}, 'node:' || $2)))`,
);
/**
 * Renews a slot ($3 its kind) read as held, for $4 seconds; a halted slot's halt follows the
 * policy asked for ($5).
 */
const RENEW_FOR_POLICY = new BatchStatement(
  'upgrade-slot-renew',
  `UPDATE agbot.upgrade_grants
   SET lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $4::float8),
       management_policy = $5::text
   WHERE org = $1 AND node = $2 AND holder_kind = $3
   RETURNING ${COLUMNS}`,
);

/** A grant's read and the writes it decides on; each write records its history row and event with it. */
interface SlotStatements {
  read: BatchStatement;
  grant: BatchStatement;
  release: BatchStatement;
}

/** The semaphore's statements, with the outbox event each writes in the writer's own SQL. */
function slotStatements(outbox: OutboxWriter): SlotStatements {
  // The history row and the granted event of the slot a statement took (its CTE `slot`), the
  // event's subject and headers the statement's parameters numbered `subject` and `subject + 1`.
  const recordGrant = (subject: number) => `history AS (
       INSERT INTO agbot.upgrade_grant_history
         (org, node, holder_kind, ha_group, management_policy, event, granted_at)
       SELECT org, node, holder_kind, ha_group, management_policy, 'granted', granted_at FROM slot
     ), event AS (
       ${outbox.appendFrom('slot', {
         subject: `$${subject}::text`,
         type: literal(UpgradeGranted.type),
         payload: jsonObject(grantPayloadSql()),
         headers: `$${subject + 1}::jsonb`,
       })}
     )`;
  return {
    // After the group's lock ($1 the org, $2 the node): the slots held by the node or in its group,
    // and whether the policy ($3) is stopped, read in a statement of its own so that its snapshot
    // holds every grant committed before. When nothing is held there and the policy may run, it
    // takes the slot ($4 its kind, for $5 seconds) in the same statement: the rule's answer for a
    // free group, so a grant needs no second round trip. `taken` is that slot, or null.
    read: new BatchStatement(
      'upgrade-slot-read',
      `WITH state AS (
           SELECT date_trunc('milliseconds', clock_timestamp()) AS now,
                  (SELECT coalesce(json_agg(g), '[]') FROM agbot.upgrade_grants AS g
                   WHERE g.org = $1 AND (g.node = $2 OR g.ha_group = ${GROUP_OF})) AS held,
                  EXISTS (SELECT 1 FROM agbot.mirrored_resources AS m
                          WHERE m.org = $1 AND m.resource = 'managementPolicy' AND m.id = $3
                            AND (coalesce((m.data ->> 'enabled')::boolean, false) = false
                                 OR coalesce((m.data ->> 'paused')::boolean, false))) AS policy_stopped
         ), slot AS (
           INSERT INTO agbot.upgrade_grants
             (org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at)
           SELECT n.org, n.id, $4::text, n.ha_group, $3::text, state.now,
                  state.now + make_interval(secs => $5::float8)
           FROM state JOIN agbot.nodes AS n ON n.org = $1 AND n.id = $2
           WHERE json_array_length(state.held) = 0
             AND NOT ($4::text = 'agent-upgrade' AND state.policy_stopped)
           RETURNING ${COLUMNS}
         ), ${recordGrant(6)}
         SELECT state.now, state.held, state.policy_stopped, (SELECT row_to_json(slot) FROM slot) AS taken
         FROM state`,
    ),
    // Takes a slot the rule granted once the released ones are gone ($3 kind, $4 group, $5
    // policy, from $6 for $7 seconds).
    grant: new BatchStatement(
      'upgrade-slot-grant',
      `WITH slot AS (
           INSERT INTO agbot.upgrade_grants
             (org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at)
           VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $6::timestamptz + make_interval(secs => $7::float8))
           RETURNING ${COLUMNS}
         ), ${recordGrant(8)}
         SELECT ${COLUMNS} FROM slot`,
    ),
    // Deletes the slot ($3 kind) if the conditions still hold (releases take no lock), with its
    // history row and outbox event; answers the deleted row with the time it was released.
    // $4 the reason (a lease-expired release takes only a lapsed slot), $5 the policy it must
    // hold for (any when null), $6 whether it must have left group $7, $8 whether a halted
    // slot goes too, $11 whether only a halted one goes; $9 and $10 the event's subject and headers.
    release: new BatchStatement(
      'upgrade-slot-release',
      `WITH t AS (SELECT date_trunc('milliseconds', clock_timestamp()) AS at),
       slot AS (
         DELETE FROM agbot.upgrade_grants
         WHERE org = $1 AND node = $2 AND holder_kind = $3
           AND ($4::text <> 'lease-expired' OR (lease_expires_at <= clock_timestamp() AND halted_at IS NULL))
           AND ($5::text IS NULL OR management_policy = $5::text)
           AND (NOT $6::boolean OR ha_group IS DISTINCT FROM $7::text)
           AND ($8::boolean OR halted_at IS NULL)
           AND (NOT $11::boolean OR halted_at IS NOT NULL)
         RETURNING *
       ), history AS (
         INSERT INTO agbot.upgrade_grant_history
           (org, node, holder_kind, ha_group, management_policy, event, reason, granted_at, at)
         SELECT org, node, holder_kind, ha_group, management_policy, 'released', $4::text, granted_at, t.at
         FROM slot, t
       ), event AS (
         ${outbox.appendFrom('slot, t', {
           subject: '$9::text',
           type: literal(UpgradeReleased.type),
           payload: jsonObject(releasedPayloadSql('$4::text')),
           headers: '$10::jsonb',
         })}
       )
       SELECT ${COLUMNS.split(', ')
         .map((column) => `slot.${column}`)
         .join(', ')}, t.at AS released_at FROM slot, t`,
    ),
  };
}

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

export class GrantStore {
  private readonly statements: SlotStatements;

  constructor(private readonly outbox: OutboxWriter) {
    this.statements = slotStatements(outbox);
  }

  /**
   * Renews, grants or refuses a slot, releasing on the way the slots whose lease ran out or
   * whose group is no longer theirs. On a connection of its own, one transaction of one round
   * trip settles a free group (the read takes the slot) and a refusal (nothing to write); what
   * needs writes the rule decides on (releases, a renewal) takes a second transaction of two
   * round trips: read under the lock, then write and commit.
   */
  acquire(manager: EntityManager, request: SlotRequest): Promise<SlotAnswer> {
    return withStatementBatch(manager, async (batch) => {
      let commitWithRead = batch.ownsTransaction;
      for (;;) {
        const read = await this.read(batch, request, commitWithRead);
        if (read.outcome === 'unknown-node') return { outcome: 'unknown-node', released: [] };
        const { question } = read;
        if (read.taken) {
          this.outbox.written(manager);
          if (!commitWithRead && batch.ownsTransaction) await batch.run(['COMMIT']);
          return { outcome: 'granted', haGroup: question.haGroup, grant: read.taken, released: [] };
        }
        const { release, answer } = decideSlot(question);
        if (commitWithRead) {
          if (release.length === 0 && (answer.outcome === 'refuse' || answer.outcome === 'policy-stopped'))
            return answered(answer, question.haGroup, []);
          commitWithRead = false;
          continue;
        }
        const results = await batch.run([
          ...release.map(({ grant, reason }) => this.releaseCall(grant, reason, releaseConditions(reason))),
          ...(answer.outcome === 'renew'
            ? [
                RENEW_FOR_POLICY.with(
                  ...keyOf(answer.grant),
                  question.leaseSeconds,
                  question.managementPolicy,
                ),
              ]
            : []),
          ...(answer.outcome === 'grant' ? [this.grantCall(question)] : []),
          ...(batch.ownsTransaction ? ['COMMIT' as const] : []),
        ]);
        const released = release.flatMap(({ reason }, index) =>
          (results[index] as ReleasedRow[]).map((row) => toReleased({ ...row, reason })),
        );
        const written = results[release.length]?.[0] as GrantRow | undefined;
        if (released.length > 0 || answer.outcome === 'grant') this.outbox.written(manager);
        if (answer.outcome === 'renew' && !written) {
          // A release (they take no lock) took the slot after it was read: ask again.
          if (!batch.ownsTransaction) throw new Error('the slot to renew was released meanwhile');
          continue;
        }
        return answered(answer, question.haGroup, released, written && toGrant(written));
      }
    });
  }

  /**
   * Share-locks the node's mirror row, takes its group's lock and reads (or takes, when free) the
   * slots held there; committed with the read when `commitWithRead`, otherwise left open for the
   * writes the rule decides on.
   */
  private async read(
    batch: StatementBatch,
    request: SlotRequest,
    commitWithRead: boolean,
  ): Promise<
    | { outcome: 'unknown-node' }
    | { outcome?: never; question: SlotQuestion & SlotRequest; taken?: UpgradeGrant }
  > {
    const { org, node } = request;
    const rows = await batch.run([
      ...(batch.ownsTransaction ? ['BEGIN' as const] : []),
      NODE_GROUP.with(org, node),
      LOCK_GROUP.with(org, node),
      this.statements.read.with(
        org,
        node,
        request.managementPolicy,
        request.kind,
        request.leaseSeconds,
        UpgradeGranted.subject(org, node),
        JSON.stringify(this.outbox.headers()),
      ),
      ...(commitWithRead ? ['COMMIT' as const] : []),
    ]);
    const [mirrored, , state] = rows.slice(batch.ownsTransaction ? 1 : 0) as [
      { ha_group: string | null }[],
      unknown,
      { now: Date; held: JsonGrantRow[]; policy_stopped: boolean; taken: JsonGrantRow | null }[],
    ];
    if (!mirrored[0]) {
      if (batch.ownsTransaction && !commitWithRead) await batch.run(['COMMIT']);
      return { outcome: 'unknown-node' };
    }
    const question = {
      ...request,
      haGroup: mirrored[0].ha_group,
      held: state[0]!.held.map(fromJson),
      now: state[0]!.now,
      policyStopped: state[0]!.policy_stopped,
    };
    return { question, taken: state[0]!.taken ? fromJson(state[0]!.taken) : undefined };
  }

  /** Extends a held slot's lease from now; undefined when the slot is no longer held. */
  async renew(
    manager: EntityManager,
    key: GrantKey,
    leaseSeconds: number,
    managementPolicy?: string,
  ): Promise<UpgradeGrant | undefined> {
    // An UPDATE answers [rows, count].
    const [rows] = await RENEW.run<[GrantRow[], number]>(manager, [
      key.org,
      key.node,
      key.kind,
      leaseSeconds,
      managementPolicy ?? null,
    ]);
    return rows[0] ? toGrant(rows[0]) : undefined;
  }

  /**
   * Releases the given slots, one at a time in key order (so two releasers never deadlock), each
   * only if still held and, for `lease-expired`, only if its lease has still run out. A halted
   * slot is released only with `haltedToo`. Each release is one statement: the row, its history
   * row and its outbox event go together.
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
    await withStatementBatch(manager, async (batch) => {
      for (const key of ordered) {
        const [rows] = (await batch.run([this.releaseCall(key, reason, only)])) as [ReleasedRow[]];
        released.push(...rows.map((row) => toReleased({ ...row, reason })));
      }
    });
    if (released.length > 0) this.outbox.written(manager);
    return released;
  }

  /**
   * Halts the member's group: its agent-upgrade slot, held or taken now (even while a peer holds
   * one: the member is down either way; granted as of its failure), gets no lease end until it
   * is healthy again or reset.
   * Under the group's advisory lock, like a grant, so the history keeps the order slots were held.
   * Returns the halted slot, or undefined when the node is unknown to the mirror.
   */
  async halt(manager: EntityManager, request: HaltRequest): Promise<UpgradeGrant | undefined> {
    const [node] = await NODE_GROUP.run<{ ha_group: string | null }[]>(manager, [request.org, request.node]);
    if (!node) return undefined;
    await lockGroup(manager, request.org, node.ha_group ?? `node:${request.node}`);
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
           SELECT $1, $2, 'agent-upgrade', $5, $3, least($6::timestamptz, now), now, now, $4 FROM t
           RETURNING ${COLUMNS}`,
            [...params, request.failedAt],
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
   * that heartbeat (a change replayed late, or one that only carries an old heartbeat along). A
   * slot whose row another transaction holds is skipped, not waited for: waiting deadlocked
   * under load, and the holder's next heartbeat, well inside its lease, renews it.
   */
  async renewOnHeartbeat(
    manager: EntityManager,
    org: string,
    nodes: readonly string[],
    heartbeat: Date,
    leaseSeconds: number,
  ): Promise<void> {
    await RENEW_ON_HEARTBEAT.run(manager, [org, nodes, leaseSeconds, heartbeat]);
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
    const rows: (GrantRow & { policy_removed: boolean })[] = await manager.query(
      `SELECT ${COLUMNS}, ${POLICY_REMOVED('g')} AS policy_removed
       FROM agbot.upgrade_grants AS g
       WHERE org = $1 AND ha_group = $2 AND halted_at IS NOT NULL AND ($3::text IS NULL OR node = $3)
       ORDER BY node`,
      [org, haGroup, node ?? null],
    );
    return rows.map((row) => ({ ...toGrant(row), policyRemoved: row.policy_removed }));
  }

  /**
   * The node's HA group as the mirror has it: null outside any group, undefined for a node the
   * mirror does not know.
   */
  async groupOf(manager: EntityManager, org: string, node: string): Promise<string | null | undefined> {
    const [row]: { ha_group: string | null }[] = await manager.query(
      'SELECT ha_group FROM agbot.nodes WHERE org = $1 AND id = $2',
      [org, node],
    );
    return row ? row.ha_group : undefined;
  }

  /** Whether the group has a member the mirror knows, or a slot still held for it. */
  async knowsGroup(manager: EntityManager, org: string, haGroup: string): Promise<boolean> {
    const [row]: { known: boolean }[] = await manager.query(
      `SELECT EXISTS (SELECT 1 FROM agbot.nodes WHERE org = $1 AND ha_group = $2)
              OR EXISTS (SELECT 1 FROM agbot.upgrade_grants WHERE org = $1 AND ha_group = $2) AS known`,
      [org, haGroup],
    );
    return row!.known;
  }

  /** The org's HA groups (as the mirror has their members) and what holds each one's slot. */
  async groups(manager: EntityManager, org: string): Promise<GroupSlotState[]> {
    const rows: {
      ha_group: string;
      members: number;
      holders: JsonGrantRow[] | null;
      removed_policies: string[];
    }[] = await manager.query(
      `SELECT n.ha_group, count(*)::int AS members,
              (SELECT json_agg(g ORDER BY g.halted_at IS NULL, g.granted_at, g.node)
               FROM agbot.upgrade_grants AS g WHERE g.org = $1 AND g.ha_group = n.ha_group) AS holders,
              array(SELECT DISTINCT g.management_policy FROM agbot.upgrade_grants AS g
                    WHERE g.org = $1 AND g.ha_group = n.ha_group AND ${POLICY_REMOVED('g')}) AS removed_policies
       FROM agbot.nodes AS n
       WHERE n.org = $1 AND n.ha_group IS NOT NULL
       GROUP BY n.ha_group ORDER BY n.ha_group`,
      [org],
    );
    return rows.map((row) => ({
      haGroup: row.ha_group,
      members: row.members,
      holders: (row.holders ?? []).map(fromJson),
      removedPolicies: row.removed_policies,
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

  /** Takes the slot the rule granted, from the moment the slots were read. */
  private grantCall(question: SlotQuestion & SlotRequest): BatchCall {
    return this.statements.grant.with(
      ...keyOf(question),
      question.haGroup,
      question.managementPolicy,
      question.now,
      question.leaseSeconds,
      UpgradeGranted.subject(question.org, question.node),
      JSON.stringify(this.outbox.headers()),
    );
  }

  /** Releases the slot if the conditions still hold (see slotStatements). */
  private releaseCall(key: GrantKey, reason: UpgradeReleaseReason, only: ReleaseConditions): BatchCall {
    return this.statements.release.with(
      ...keyOf(key),
      reason,
      only.managementPolicy ?? null,
      only.notInGroup !== undefined,
      only.notInGroup ?? null,
      only.haltedToo ?? false,
      UpgradeReleased.subject(key.org, key.node),
      JSON.stringify(this.outbox.headers()),
      only.haltedOnly ?? false,
    );
  }
}

function keyOf(key: { org: string; node: string; kind: UpgradeHolderKind }): [string, string, string] {
  return [key.org, key.node, key.kind];
}

/** What a release the rule decided still requires: slots that left their group go, halted or not. */
function releaseConditions(reason: UpgradeReleaseReason): ReleaseConditions {
  return reason === 'left-group' ? { haltedToo: true } : {};
}

/**
 * The granted event's payload, field by field, from the slot's row (`slot`): typed by the payload
 * class, so a field added to the event is missed here at compile time, not on the wire.
 */
function grantPayloadSql(): SqlFields<UpgradeGrantPayload> {
  return {
    org: 'slot.org',
    node: 'slot.node',
    haGroup: 'slot.ha_group',
    holder: 'slot.holder_kind',
    managementPolicy: 'slot.management_policy',
    grantedAt: isoTime('slot.granted_at'),
    leaseExpiresAt: isoTime('slot.lease_expires_at'),
  };
}

/** The released event's payload, as the granted one's, with the reason and the release time (`t.at`). */
function releasedPayloadSql(reason: string): SqlFields<UpgradeReleasedPayload> {
  return { ...grantPayloadSql(), reason, releasedAt: isoTime('t.at') };
}

/** The answer to a request the rule decided, with the slot the decision wrote (granted or renewed). */
function answered(
  answer: SlotVerdict,
  haGroup: string | null,
  released: ReleasedGrant[],
  written?: UpgradeGrant,
): SlotAnswer {
  switch (answer.outcome) {
    case 'policy-stopped':
      return { outcome: 'policy-stopped', released };
    case 'refuse':
      return { outcome: 'refused', haGroup, grant: answer.blocker, released };
    case 'grant':
      return { outcome: 'granted', haGroup, grant: written!, released };
    case 'renew':
      return { outcome: 'renewed', haGroup, grant: written!, released };
  }
}

type ReleasedRow = GrantRow & { released_at: Date };

/** Takes the semaphore's advisory lock until the transaction ends. */
async function lockGroup(tx: EntityManager, org: string, semaphore: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(agbot.upgrade_lock_key($1, $2))', [org, semaphore]);
}

/** A slot as json_agg writes a row of agbot.upgrade_grants. */
type JsonGrantRow = Omit<GrantRow, 'granted_at' | 'lease_expires_at' | 'halted_at'> & {
  granted_at: string;
  lease_expires_at: string;
  halted_at: string | null;
};

function fromJson(row: JsonGrantRow): UpgradeGrant {
  return toGrant({
    ...row,
    granted_at: new Date(row.granted_at),
    lease_expires_at: new Date(row.lease_expires_at),
    halted_at: row.halted_at ? new Date(row.halted_at) : null,
  });
}

function toReleased(
  row: GrantRow & { reason: UpgradeReleaseReason | null; released_at: Date | null },
): ReleasedGrant {
  return { ...toGrant(row), reason: row.reason!, releasedAt: row.released_at! };
}
