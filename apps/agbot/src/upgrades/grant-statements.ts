/**
 * The SQL the grant store (grant-store.ts) sends, and the mapping of the rows it answers: each
 * statement's text and the parameters it expects, the outbox rows a grant or release writes in
 * the same statement, and how a row of agbot.upgrade_grants becomes an UpgradeGrant.
 *
 * It owns what each statement says, never when one runs: nothing here opens or ends a
 * transaction, takes a lock, orders releases, retries, or decides who gets a slot (slot-rule.ts
 * does). The one answer written here as well as in the rule is the free group's: the read takes
 * the slot when nothing is held in the group and the policy may run (see `slotStatements`), and
 * grant-rule-parity.int-spec.ts holds the two to the same answer.
 */
import {
  UpgradeGranted,
  type UpgradeGrantPayload,
  UpgradeReleased,
  type UpgradeReleasedPayload,
  type UpgradeHolderKind,
  type UpgradeReleaseReason,
} from '@careen/contracts';
import { isoTime, jsonObject, NamedStatement, type OutboxWriter, type SqlFields } from '@careen/persistence';
import {
  DISRUPTION_CONTROL_KINDS,
  type DisruptionControlKind,
  type DisruptionSelector,
  type SelectedNode,
  type UnavailableLimit,
} from '@careen/disruption';
import { BatchStatement, literal } from './statement-batch';
import { type ReleasedGrant, type UpgradeGrant } from './upgrade-grant';

/** A row of agbot.upgrade_grants. */
export interface GrantRow {
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

/** A slot as json_agg writes a row of agbot.upgrade_grants. */
export type JsonGrantRow = Omit<GrantRow, 'granted_at' | 'lease_expires_at' | 'halted_at'> & {
  granted_at: string;
  lease_expires_at: string;
  halted_at: string | null;
};

/** A slot a release deleted, with when. */
export type ReleasedRow = GrantRow & { released_at: Date };

/** What the slot read answers (see `slotStatements`): one row. */
export interface SlotReadRow {
  now: Date;
  held: JsonGrantRow[];
  policy_stopped: boolean;
  taken: JsonGrantRow | null;
  /** The group's maxUnavailable as the exchange has it; null for one member. */
  group_limit: UnavailableLimit | null;
  /** How many members the group has, read only for a percentage. */
  group_size: number | null;
  /** The org's windows, freezes and budgets, read only when it has any. */
  controls: { kind: DisruptionControlKind; data: Record<string, unknown> }[] | null;
  /** What the controls' selectors look at of the node, read only with them. */
  node: SelectedNode | null;
  /** The node's busy declaration, while it lasts. */
  busy: { reason: string; until: string; declared_by: string } | null;
  /** The steps soaking in the org, read only with the controls (see ENDED_STEPS). */
  soaking: EndedStepRow[] | null;
  /** The org declared instance groups (read the node's with NODE_GROUPS). */
  grouped: boolean;
}

/** An instance group with instances on a node: its budget of impacted instances, and how many the node holds. */
export interface NodeInstanceGroup {
  group: string;
  project: string;
  maxImpacted: number;
  own: number;
  recoverySeconds: number;
  /** The last disruption of another node holding its instances that ended within its recovery time. */
  lastEnded: { node: string; at: string } | null;
}

/** A step that ended on a node within the org's longest soak, nothing on the node since. */
export interface EndedStepRow extends SelectedNode {
  ended_at: string;
  management_policy: string | null;
}

/** The releases after which a node soaks: it reported healthy, or its holder gave the slot back. */
const SOAK_AFTER = "('terminal-status', 'healthy', 'released')";

/**
 * The steps of org $1 that ended within the longest soak of its alert gates (none when no gate
 * soaks): the nodes whose last history row there is a release after work done, that hold no
 * slot now, with what the gates' selectors look at, as a JSON array (null when none). The bound
 * is the transaction's start (now(), stable), not the clock: an index scan can use only the former.
 */
export const ENDED_STEPS = `(SELECT json_agg(json_build_object(
       ${selectedNodeFields('n')}, 'ended_at', s.at, 'management_policy', s.management_policy) ORDER BY s.at)
     FROM (SELECT DISTINCT ON (h.node) h.node, h.event, h.reason, h.at, h.management_policy
           FROM agbot.upgrade_grant_history AS h
           WHERE h.org = $1 AND h.at > now() - make_interval(secs => (
             SELECT max((c.data ->> 'soakSeconds')::float8) FROM agbot.mirrored_resources AS c
             WHERE c.org = $1 AND c.resource = 'gate'))
           ORDER BY h.node, h.at DESC) AS s
     JOIN agbot.nodes AS n ON n.org = $1 AND n.id = s.node
     WHERE s.event = 'released' AND s.reason IN ${SOAK_AFTER}
       AND NOT EXISTS (SELECT 1 FROM agbot.upgrade_grants AS g WHERE g.org = $1 AND g.node = s.node))`;

/** What a budget's reads answer: how many nodes it covers, and which of them are down. */
export interface BudgetCoveredRow {
  covered: number;
}
export interface BudgetDownRow {
  down: string[];
}

const COLUMNS =
  'org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at, halted_at, halt_error';

/** The columns of a row of agbot.upgrade_grants, each prefixed with the table's alias. */
const columnsOf = (alias: string) =>
  COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');

/**
 * Whether the slot (`grant`, a row of agbot.upgrade_grants) is for a management policy the
 * mirror no longer has: a halt outlives its policy until an admin resets it.
 */
const POLICY_REMOVED = (grant: string) =>
  `(${grant}.management_policy IS NOT NULL AND NOT EXISTS (
     SELECT 1 FROM agbot.mirrored_resources AS m
     WHERE m.org = ${grant}.org AND m.resource = 'managementPolicy' AND m.id = ${grant}.management_policy))`;

/** Sent for most statuses a fleet reports, and for every renewal: named, so planned once per connection. */
export const RENEW = new NamedStatement(
  'upgrade-grant-renew',
  `UPDATE agbot.upgrade_grants
   SET lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $4)
   WHERE org = $1 AND node = $2 AND holder_kind = $3 AND ($5::text IS NULL OR management_policy = $5)
   RETURNING ${COLUMNS}`,
);
/**
 * Renews the agent-upgrade leases of nodes $2 of org $1 for $3 seconds, unless renewed since the
 * heartbeat at $4; skips a slot whose row another transaction holds.
 */
export const RENEW_ON_HEARTBEAT = new NamedStatement(
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
export const OF_NODE = new NamedStatement(
  'upgrade-grants-of-node',
  `SELECT ${COLUMNS} FROM agbot.upgrade_grants WHERE org = $1 AND node = $2`,
);

/** The mirrored resources the disruption gate reads. */
export const CONTROL_KINDS = `(${DISRUPTION_CONTROL_KINDS.map((kind) => `'${kind}'`).join(', ')})`;

/** The disruption controls of org $1 as a JSON array of `{kind, data}` (ControlRow), null when none. */
export const ORG_CONTROLS = `(SELECT json_agg(json_build_object('kind', c.resource, 'data', c.data) ORDER BY c.resource, c.id)
   FROM agbot.mirrored_resources AS c WHERE c.org = $1 AND c.resource IN ${CONTROL_KINDS})`;

/** What the controls' selectors look at of node $2 of org $1, as JSON (a SelectedNode). */
export const SELECTED_NODE = `(SELECT json_build_object(${selectedNodeFields('n')})
   FROM agbot.nodes AS n WHERE n.org = $1 AND n.id = $2)`;

/** The node's group as its (share-locked) mirror row has it; $1 the org, $2 the node. */
const GROUP_OF = '(SELECT ha_group FROM agbot.nodes WHERE org = $1 AND id = $2)';

// A grant's statements, sent in two batches (see GrantStore.acquire); $1 the org, $2 the node throughout.

/** Share-locks the node's mirror row: its group cannot change until the commit. */
export const NODE_GROUP = new BatchStatement(
  'upgrade-slot-node',
  'SELECT ha_group FROM agbot.nodes WHERE org = $1 AND id = $2 FOR SHARE',
);
/** The group's semaphore, or the node's own when it is in no group. */
export const LOCK_GROUP = new BatchStatement(
  'upgrade-slot-lock',
  `SELECT pg_advisory_xact_lock(agbot.upgrade_lock_key($1, coalesce(${GROUP_OF}, 'node:' || $2)))`,
);
/**
 * Renews a slot ($3 its kind) read as held, for $4 seconds; a halted slot's halt follows the
 * policy asked for ($5).
 */
export const RENEW_FOR_POLICY = new BatchStatement(
  'upgrade-slot-renew',
  `UPDATE agbot.upgrade_grants
   SET lease_expires_at = date_trunc('milliseconds', clock_timestamp()) + make_interval(secs => $4::float8),
       management_policy = $5::text
   WHERE org = $1 AND node = $2 AND holder_kind = $3
   RETURNING ${COLUMNS}`,
);

/**
 * Whether mirrored node `n` matches `selector`, a JSON disruption selector (libs/disruption's
 * `covers`: every criterion given must hold; one left out or empty holds for every node).
 */
const SELECTED = (n: string, selector: string) => {
  const given = (key: string) => `jsonb_array_length(coalesce(${selector} -> '${key}', '[]')) = 0`;
  const listed = (key: string) => `(SELECT jsonb_array_elements_text(${selector} -> '${key}'))`;
  return `coalesce(${n}.data -> 'labels', '{}') @> coalesce(${selector} -> 'labels', '{}')
     AND (${given('racks')} OR ${n}.data ->> 'rack' IN ${listed('racks')})
     AND (${given('haGroups')} OR ${n}.ha_group IN ${listed('haGroups')})
     AND (${given('nodes')} OR ${n}.id IN ${listed('nodes')})`;
};

/**
 * Whether workloads `w` (agbot.node_workloads) run a member policy of instance-group member `m`
 * (agbot.instance_group_members): the node holds one of the group's instances.
 */
const RUNS_MEMBER = (w: string, m: string) =>
  `${w}.workloads @> jsonb_build_array(jsonb_build_object('deploymentPolicy', ${m}.policy))`;

/**
 * The instance groups with instances on node $2 of org $1, as JSON (NodeInstanceGroup[]), null
 * for none; with a recovery time, the latest release within it of another node holding the
 * group's instances (by the history's `(org, at)` index).
 */
export const NODE_INSTANCE_GROUPS = `(SELECT json_agg(json_build_object('group', c.group_id, 'project', c.project,
       'maxImpacted', c.max_impacted, 'own', c.own, 'recoverySeconds', c.recovery_seconds,
       'lastEnded', CASE WHEN c.recovery_seconds > 0 THEN
         (SELECT json_build_object('node', h.node, 'at', h.at)
          FROM agbot.upgrade_grant_history AS h
          JOIN agbot.node_workloads AS hw ON hw.org = h.org AND hw.node = h.node
          WHERE h.org = $1 AND h.node <> $2 AND h.event = 'released'
            AND h.at > now() - make_interval(secs => c.recovery_seconds)
            AND EXISTS (SELECT 1 FROM agbot.instance_group_members AS hm
                        WHERE hm.org = $1 AND hm.group_id = c.group_id AND ${RUNS_MEMBER('hw', 'hm')})
          ORDER BY h.at DESC LIMIT 1) END) ORDER BY c.group_id)
   FROM (SELECT m.group_id, m.project, m.max_impacted, m.recovery_seconds, count(*)::int AS own
         FROM agbot.instance_group_members AS m
         JOIN agbot.node_workloads AS w ON w.org = m.org AND w.node = $2
         WHERE m.org = $1 AND ${RUNS_MEMBER('w', 'm')}
         GROUP BY m.group_id, m.project, m.max_impacted, m.recovery_seconds) AS c)`;
/**
 * The instance groups of node $2 of org $1 (NodeInstanceGroup[], null for none): read on their
 * own, after the slot read, only in an org that declared any. In the slot read they would cost
 * every grant of every org the executor's start of their plan (about 0.1 ms of Postgres each).
 */
export const NODE_GROUPS = new BatchStatement(
  'upgrade-node-instance-groups',
  `SELECT ${NODE_INSTANCE_GROUPS} AS instance_groups`,
);
export interface NodeGroupsRow {
  instance_groups: NodeInstanceGroup[] | null;
}

/**
 * The other nodes of org $1 than $2 that are down (a live slot of any kind), each with its
 * count (`instances`) of the instances of group `group` (an SQL expression) it holds.
 */
const GROUP_IMPACTED = (group: string) => `(SELECT d.node, count(*)::int AS instances
   FROM (SELECT DISTINCT g.node FROM agbot.upgrade_grants AS g
         WHERE g.org = $1 AND g.node <> $2
           AND (g.halted_at IS NOT NULL OR g.lease_expires_at > clock_timestamp())) AS d
   JOIN agbot.node_workloads AS w ON w.org = $1 AND w.node = d.node
   JOIN agbot.instance_group_members AS m ON m.org = $1 AND m.group_id = ${group} AND ${RUNS_MEMBER('w', 'm')}
   GROUP BY d.node)`;

/** An instance group's advisory lock ($2 its id, in org $1), taken after the budgets', in id order. */
export const LOCK_INSTANCE_GROUP = new BatchStatement(
  'upgrade-instance-group-lock',
  "SELECT pg_advisory_xact_lock(agbot.upgrade_lock_key($1, 'instance-group:' || $2::text))",
);
/** Who holds instance group $3 down besides node $2 of org $1, and how many of its instances each. */
export const INSTANCE_GROUP_IMPACTED = new BatchStatement(
  'upgrade-instance-group-impacted',
  `SELECT coalesce(json_agg(i ORDER BY i.node), '[]') AS impacted FROM ${GROUP_IMPACTED('$3')} AS i`,
);
export interface InstanceGroupImpactedRow {
  impacted: { node: string; instances: number }[];
}

/** The parameters of BUDGET_COVERED and BUDGET_DOWN: the org, and the budget's selector as JSON. */
export function budgetSelection(org: string, selector: DisruptionSelector): [string, string] {
  return [org, JSON.stringify(selector)];
}

/** The slots of org $1 held live (halted, or in their lease) by nodes that `selector` covers. */
const DOWN_IN = (
  selector: string,
) => `agbot.upgrade_grants AS g JOIN agbot.nodes AS n ON n.org = g.org AND n.id = g.node
   WHERE g.org = $1 AND (g.halted_at IS NOT NULL OR g.lease_expires_at > clock_timestamp()) AND ${SELECTED('n', selector)}`;

/** A fleet budget's advisory lock ($2 its name, in org $1), taken after the group's, in name order. */
export const LOCK_BUDGET = new BatchStatement(
  'upgrade-budget-lock',
  "SELECT pg_advisory_xact_lock(agbot.upgrade_lock_key($1, 'budget:' || $2::text))",
);
/**
 * How many nodes of org $1 a budget's selector ($2, JSON) covers. Read before the budget's lock:
 * grants do not change it.
 */
export const BUDGET_COVERED = new BatchStatement(
  'upgrade-budget-covered',
  `SELECT count(*)::int AS covered FROM agbot.nodes AS n WHERE n.org = $1 AND ${SELECTED('n', '$2::jsonb')}`,
);
/** The covered nodes holding a live slot; parameters as BUDGET_COVERED's. */
export const BUDGET_DOWN = new BatchStatement(
  'upgrade-budget-down',
  `SELECT coalesce(array_agg(DISTINCT g.node ORDER BY g.node), '{}') AS down FROM ${DOWN_IN('$2::jsonb')}`,
);

/** A grant's read and the writes it decides on; each write records its history row and event with it. */
export interface SlotStatements {
  read: BatchStatement;
  grant: BatchStatement;
  grantWithin: BatchStatement;
  release: BatchStatement;
}

/** A fleet budget as the grant within budgets checks it: what it covers, and how many may be down. */
export interface BudgetLimit {
  selector: DisruptionSelector;
  allowed: number;
}

/** The semaphore's statements, with the outbox event each writes in the writer's own SQL. */
export function slotStatements(outbox: OutboxWriter): SlotStatements {
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
                                 OR coalesce((m.data ->> 'paused')::boolean, false))) AS policy_stopped,
                  EXISTS (SELECT 1 FROM agbot.mirrored_resources AS c
                          WHERE c.org = $1 AND c.resource IN ${CONTROL_KINDS}) AS controlled,
                  (SELECT h.data -> 'maxUnavailable' FROM agbot.mirrored_resources AS h
                   WHERE h.org = $1 AND h.resource = 'haGroup' AND h.id = ${GROUP_OF}) AS group_limit,
                  (SELECT json_build_object('reason', b.reason, 'until', b.until, 'declared_by', b.declared_by)
                   FROM agbot.busy_nodes AS b
                   WHERE b.org = $1 AND b.node = $2 AND b.until > clock_timestamp()) AS busy,
                  EXISTS (SELECT 1 FROM agbot.instance_groups AS ig
                          WHERE ig.org = $1 AND NOT ig.removed) AS grouped
         ), slot AS (
           INSERT INTO agbot.upgrade_grants
             (org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at)
           SELECT n.org, n.id, $4::text, n.ha_group, $3::text, state.now,
                  state.now + make_interval(secs => $5::float8)
           FROM state JOIN agbot.nodes AS n ON n.org = $1 AND n.id = $2
           WHERE json_array_length(state.held) = 0
             AND NOT ($4::text = 'agent-upgrade' AND state.policy_stopped)
             AND NOT state.controlled
             AND state.busy IS NULL
             AND NOT state.grouped
           RETURNING ${COLUMNS}
         ), ${recordGrant(6)}
         SELECT state.now, state.held, state.policy_stopped, (SELECT row_to_json(slot) FROM slot) AS taken,
                state.group_limit, state.busy, state.grouped,
                CASE WHEN jsonb_typeof(state.group_limit) = 'string'
                  THEN (SELECT count(*)::int FROM agbot.nodes WHERE org = $1 AND ha_group = ${GROUP_OF}) END AS group_size,
                CASE WHEN state.controlled THEN ${ORG_CONTROLS} END AS controls,
                CASE WHEN state.controlled THEN ${SELECTED_NODE} END AS node,
                CASE WHEN state.controlled THEN ${ENDED_STEPS} END AS soaking
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
    // The same, once the covering budgets' and instance groups' locks are held, only if each
    // budget ($10, a JSON array of BudgetLimit) has fewer other nodes down than it allows and each
    // instance group ($11, NodeInstanceGroup[]) fits the node's instances beside those impacted
    // elsewhere (libs/disruption's fitsInstanceGroup): in a statement of its own, so that its
    // snapshot holds every slot committed before the locks were taken. No slot is taken (no row
    // answered) when one is full.
    grantWithin: new BatchStatement(
      'upgrade-slot-grant-within',
      `WITH slot AS (
           INSERT INTO agbot.upgrade_grants
             (org, node, holder_kind, ha_group, management_policy, granted_at, lease_expires_at)
           SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::timestamptz,
                  $6::timestamptz + make_interval(secs => $7::float8)
           WHERE NOT EXISTS (
             SELECT 1 FROM jsonb_array_elements($10::jsonb) AS b
             WHERE (SELECT count(DISTINCT g.node) FROM ${DOWN_IN("(b -> 'selector')")} AND g.node <> $2)
                   >= (b ->> 'allowed')::int)
           AND NOT EXISTS (
             SELECT 1 FROM jsonb_array_elements($11::jsonb) AS ig
             CROSS JOIN LATERAL (SELECT coalesce(sum(i.instances), 0) AS others
                                 FROM ${GROUP_IMPACTED("(ig ->> 'group')")} AS i) AS o
             WHERE o.others > 0 AND o.others + (ig ->> 'own')::int > (ig ->> 'maxImpacted')::int)
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
       SELECT ${columnsOf('slot')}, t.at AS released_at FROM slot, t`,
    ),
  };
}

// A halt's statements, run one by one on the monitor's transaction after the group's lock;
// $1 the org, $2 the node throughout.

/** Takes the semaphore's advisory lock ($2, in org $1) until the transaction ends. */
export const LOCK_SEMAPHORE = 'SELECT pg_advisory_xact_lock(agbot.upgrade_lock_key($1, $2))';
/** Locks the node's agent-upgrade slot, if it holds one. */
export const AGENT_SLOT_FOR_UPDATE = `SELECT ${COLUMNS} FROM agbot.upgrade_grants
       WHERE org = $1 AND node = $2 AND holder_kind = 'agent-upgrade' FOR UPDATE`;
/** Halts the held slot from now (a halted one stays halted since then): $3 policy, $4 error, $5 group. */
export const HALT_HELD = `UPDATE agbot.upgrade_grants
           SET halted_at = coalesce(halted_at, date_trunc('milliseconds', clock_timestamp())),
               halt_error = $4, management_policy = $3, ha_group = $5
           WHERE org = $1 AND node = $2 AND holder_kind = 'agent-upgrade'
           RETURNING ${COLUMNS}`;
/** Takes the slot halted, granted as of the failure ($6) when that was earlier than now. */
export const HALT_NEW = `WITH t AS (SELECT date_trunc('milliseconds', clock_timestamp()) AS now)
           INSERT INTO agbot.upgrade_grants (org, node, holder_kind, ha_group, management_policy,
             granted_at, lease_expires_at, halted_at, halt_error)
           SELECT $1, $2, 'agent-upgrade', $5, $3, least($6::timestamptz, now), now, now, $4 FROM t
           RETURNING ${COLUMNS}`;
/** A history row of the slot: $3 kind, $4 group, $5 policy, $6 event, $7 reason, $8 granted at. */
export const RECORD_HISTORY = `INSERT INTO agbot.upgrade_grant_history
         (org, node, holder_kind, ha_group, management_policy, event, reason, granted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

// What the store reads for the monitor, the sweep and the API.

export const LAST_RELEASED = `SELECT max(at) AS at FROM agbot.upgrade_grant_history
       WHERE org = $1 AND node = $2 AND holder_kind = 'agent-upgrade' AND event = 'released'`;
/** Slots held for group $2 by nodes the mirror shows elsewhere, or not at all. */
export const STRAYED_FROM = `SELECT ${columnsOf('g')}
       FROM agbot.upgrade_grants AS g
       LEFT JOIN agbot.nodes AS n ON n.org = g.org AND n.id = g.node
       WHERE g.org = $1 AND g.ha_group = $2 AND n.ha_group IS DISTINCT FROM g.ha_group`;
/** At most $1 slots whose lease ran out, the longest lapsed first; halted ones have no lease end. */
export const EXPIRED = `SELECT ${COLUMNS} FROM agbot.upgrade_grants
       WHERE lease_expires_at <= clock_timestamp() AND halted_at IS NULL
       ORDER BY lease_expires_at LIMIT $1`;
export const LIST = `SELECT ${COLUMNS}, floor(extract(epoch FROM clock_timestamp() - granted_at))::text AS age_seconds
       FROM agbot.upgrade_grants WHERE org = $1 ORDER BY granted_at, node, holder_kind`;
/** The halted slots of group $2 (only node $3's unless null). */
export const HALTS_IN = `SELECT ${COLUMNS}, ${POLICY_REMOVED('g')} AS policy_removed
       FROM agbot.upgrade_grants AS g
       WHERE org = $1 AND ha_group = $2 AND halted_at IS NOT NULL AND ($3::text IS NULL OR node = $3)
       ORDER BY node`;
export const GROUP_OF_NODE = 'SELECT ha_group FROM agbot.nodes WHERE org = $1 AND id = $2';
export const KNOWS_GROUP = `SELECT EXISTS (SELECT 1 FROM agbot.nodes WHERE org = $1 AND ha_group = $2)
              OR EXISTS (SELECT 1 FROM agbot.upgrade_grants WHERE org = $1 AND ha_group = $2) AS known`;
/** The org's groups with their member counts, holders (a halted one first) and removed policies. */
export const GROUPS = `SELECT n.ha_group, count(*)::int AS members,
              (SELECT json_agg(g ORDER BY g.halted_at IS NULL, g.granted_at, g.node)
               FROM agbot.upgrade_grants AS g WHERE g.org = $1 AND g.ha_group = n.ha_group) AS holders,
              array(SELECT DISTINCT g.management_policy FROM agbot.upgrade_grants AS g
                    WHERE g.org = $1 AND g.ha_group = n.ha_group AND ${POLICY_REMOVED('g')}) AS removed_policies
       FROM agbot.nodes AS n
       WHERE n.org = $1 AND n.ha_group IS NOT NULL
       GROUP BY n.ha_group ORDER BY n.ha_group`;

/** A row of GROUPS. */
export interface GroupRow {
  ha_group: string;
  members: number;
  holders: JsonGrantRow[] | null;
  removed_policies: string[];
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

export function toGrant(row: GrantRow): UpgradeGrant {
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

export function fromJson(row: JsonGrantRow): UpgradeGrant {
  return toGrant({
    ...row,
    granted_at: new Date(row.granted_at),
    lease_expires_at: new Date(row.lease_expires_at),
    halted_at: row.halted_at ? new Date(row.halted_at) : null,
  });
}

export function toReleased(row: ReleasedRow, reason: UpgradeReleaseReason): ReleasedGrant {
  return { ...toGrant(row), reason, releasedAt: row.released_at };
}

/** The `json_build_object` fields of mirrored node `n` that the controls' selectors look at. */
export function selectedNodeFields(n: string): string {
  return `'id', ${n}.id, 'labels', coalesce(${n}.data -> 'labels', '{}'), 'rack', ${n}.data ->> 'rack', 'haGroup', ${n}.ha_group`;
}
