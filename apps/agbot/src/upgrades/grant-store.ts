/**
 * The semaphore's transactions. Postgres is the lock: a grant share-locks the node's mirror row
 * (its group cannot change meanwhile), takes the group's transaction-scoped advisory lock, reads
 * the slots held in the group, and carries out what the rule (slot-rule.ts) decides, in one
 * transaction with the history rows and outbox events of every grant and release. Releases take
 * no lock: a release stamps its history row before it commits, and a grant that sees the slot
 * free stamps after that commit, so the history's order is the order in which slots were held.
 *
 * It owns when each statement runs: the transactions and their round trips, the advisory locks,
 * the order of releases (key order, so two releasers never deadlock) and the grant's retry when
 * a release overtook it. It never writes SQL text (grant-statements.ts holds every statement and
 * maps their rows) and never decides who gets a slot (slot-rule.ts does).
 */
import {
  UpgradeGranted,
  UpgradeHalted,
  UpgradeReleased,
  type UpgradeHolderKind,
  type UpgradeReleaseReason,
} from '@careen/contracts';
import {
  allowedDown,
  type Budget,
  type BusyDeclaration,
  busyRefusal,
  checkInstanceGroup,
  isPercent,
  type SelectedNode,
} from '@careen/disruption';
import { type OutboxWriter } from '@careen/persistence';
import { type EntityManager } from 'typeorm';
import {
  AGENT_SLOT_FOR_UPDATE,
  BUDGET_COVERED,
  BUDGET_DOWN,
  budgetSelection,
  LOCK_BUDGET,
  type BudgetCoveredRow,
  type BudgetDownRow,
  type BudgetLimit,
  HALT_HELD,
  INSTANCE_GROUP_IMPACTED,
  type InstanceGroupImpactedRow,
  LOCK_INSTANCE_GROUP,
  NODE_GROUPS,
  type NodeGroupsRow,
  type NodeInstanceGroup,
  HALT_NEW,
  LOCK_GROUP,
  LOCK_SEMAPHORE,
  NODE_GROUP,
  RECORD_HISTORY,
  RENEW,
  RENEW_FOR_POLICY,
  RENEW_ON_HEARTBEAT,
  slotStatements,
  fromJson,
  toGrant,
  toReleased,
  type GrantRow,
  type ReleasedRow,
  type SlotReadRow,
  type SlotStatements,
} from './grant-statements';
import { GrantReads } from './grant-reads';
import { decideSlot, type SlotQuestion, type SlotVerdict } from './slot-rule';
import { CoveredCounts } from '../disruption/covered-counts';
import { endedSteps, type SoakingStep } from '../disruption/soaks';
import {
  type AlertAnswers,
  budgetRefusal,
  ControlsCache,
  type GateRefusal,
  type OrgControls,
  recoveryRefusal,
} from '../disruption/disruption-gate';
import { withStatementBatch, type BatchCall, type StatementBatch } from './statement-batch';
import { grantPayload, type GrantKey, type ReleasedGrant, type UpgradeGrant } from './upgrade-grant';

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
  | { outcome: 'gated'; haGroup: string | null; refusal: GateRefusal }
  | { outcome: 'unknown-node' | 'policy-stopped' }
) & { released: ReleasedGrant[] };

/** A grant's question, with the org's disruption controls when it has any. */
type ReadQuestion = SlotQuestion &
  SlotRequest & {
    controls?: { of: OrgControls; node: SelectedNode; steps: SoakingStep[] };
    busy?: BusyDeclaration;
    /** The declared instance groups with instances on the node. */
    instanceGroups?: NodeInstanceGroup[];
  };

/** A fleet budget covering the node of a grant: what it covers (a percentage's count) and allows. */
interface CoveringBudget {
  budget: Budget;
  covered: number | undefined;
  allowed: number;
}

/** A member that failed and is not healthy again, as the monitor learns of it. */
export interface HaltRequest {
  org: string;
  node: string;
  /** The policy the failed step enacted; null for a maintenance or a reboot that failed its soak. */
  managementPolicy: string | null;
  error: string | null;
  /**
   * When the node reported the failure. A slot taken for it counts as granted from then: the
   * healthy status that followed the failure ends the halt, even when it was written before
   * the monitor saw the failure.
   */
  failedAt: Date;
}

/** The semaphore's writes, beside the reads it inherits (grant-reads.ts). */
export class GrantStore extends GrantReads {
  private readonly statements: SlotStatements;
  private readonly controls = new ControlsCache();
  /** Orgs whose last read said they declared instance groups. */
  private readonly grouped = new Set<string>();
  private readonly covered = new CoveredCounts();

  constructor(
    private readonly outbox: OutboxWriter,
    /** Each Prometheus's last answer, for the alert gates (none asked: every gate closed). */
    private readonly alerts: AlertAnswers = () => undefined,
  ) {
    super();
    this.statements = slotStatements(outbox);
  }

  /**
   * Renews, grants or refuses a slot, releasing on the way the slots whose lease ran out or
   * whose group is no longer theirs. On a connection of its own, one transaction of one round
   * trip settles a free group (the read takes the slot) and a refusal (nothing to write); what
   * needs writes the rule decides on (releases, a renewal) takes a second transaction of two
   * round trips: read under the lock, then write and commit. In an org with disruption controls
   * every new slot is decided in that second kind of transaction, asking the gate
   * (disruption/disruption-gate.ts) between the read and the write; the write takes the covering
   * budgets' locks and the slot only if each has room, so a budget's lock is held for one round
   * trip.
   */
  acquire(manager: EntityManager, request: SlotRequest): Promise<SlotAnswer> {
    return withStatementBatch(manager, async (batch) => {
      // An org with disruption controls or instance groups has every grant decided under the lock
      // (the read takes no slot for it): it skips the read that would only be committed to be done again.
      let commitWithRead =
        batch.ownsTransaction && !this.controls.has(request.org) && !this.grouped.has(request.org);
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
        // The clock's, the node's, the alerts' and a recovering instance group's refusals need no
        // lock beyond the group's; a budget's is read under its own.
        const earlyRefusal =
          answer.outcome !== 'grant'
            ? undefined
            : ((question.controls
                ? question.controls.of.refusalBeforeBudgets(
                    question.controls.node,
                    question.now,
                    question.busy,
                    this.alerts,
                    question.controls.steps,
                  )
                : busyRefusal(question.busy, question.now)) ??
              recoveryRefusal(question.instanceGroups, question.now));
        if (commitWithRead) {
          if (release.length === 0 && earlyRefusal) return gated(earlyRefusal, question.haGroup, []);
          if (release.length === 0 && (answer.outcome === 'refuse' || answer.outcome === 'policy-stopped'))
            return answered(answer, question.haGroup, []);
          commitWithRead = false;
          continue;
        }
        if (earlyRefusal) {
          const released = await this.releaseAll(batch, release);
          if (released.length > 0) this.outbox.written(manager);
          return gated(earlyRefusal, question.haGroup, released);
        }
        // A grant is taken under the locks of the budgets covering the node and of its instance
        // groups, in the statement that checks them: each lock is held for that one round trip.
        const budgets = answer.outcome === 'grant' ? await this.budgetLimits(batch, question) : [];
        const groups = answer.outcome === 'grant' ? (question.instanceGroups ?? []) : [];
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
          ...budgets.map(({ budget }) => LOCK_BUDGET.with(question.org, budget.name)),
          ...groups.map(({ group }) => LOCK_INSTANCE_GROUP.with(question.org, group)),
          ...(answer.outcome === 'grant' ? [this.grantCall(question, budgets, groups)] : []),
          ...(batch.ownsTransaction ? ['COMMIT' as const] : []),
        ]);
        const released = release.flatMap(({ reason }, index) =>
          (results[index] as ReleasedRow[]).map((row) => toReleased(row, reason)),
        );
        const written = results[release.length + budgets.length + groups.length]?.[0] as GrantRow | undefined;
        if (released.length > 0 || written) this.outbox.written(manager);
        if (answer.outcome === 'renew' && !written) {
          // A release (they take no lock) took the slot after it was read: ask again.
          if (!batch.ownsTransaction) throw new Error('the slot to renew was released meanwhile');
          continue;
        }
        if (answer.outcome === 'grant' && !written) {
          // A budget or an instance group was full: say which, as it is now (the slot was not taken).
          const refusal =
            (await this.budgetRefusal(batch, question, budgets)) ??
            (await this.instanceGroupRefusal(batch, question, groups));
          if (refusal) return gated(refusal, question.haGroup, released);
          // Freed since: ask again.
          if (!batch.ownsTransaction) throw new Error('a full budget was freed within the transaction');
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
    { outcome: 'unknown-node' } | { outcome?: never; question: ReadQuestion; taken?: UpgradeGrant }
  > {
    const { org, node } = request;
    // Where a slot may be taken under the lock in an org known to have instance groups, the node's
    // groups come in the same round trip.
    const withGroups = !commitWithRead && this.grouped.has(org);
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
      ...(withGroups ? [NODE_GROUPS.with(org, node)] : []),
      ...(commitWithRead ? ['COMMIT' as const] : []),
    ]);
    const [[mirrored], , [state], groupRows] = rows.slice(batch.ownsTransaction ? 1 : 0) as [
      { ha_group: string | null }[],
      unknown,
      SlotReadRow[],
      NodeGroupsRow[] | undefined,
    ];
    if (!mirrored) {
      if (batch.ownsTransaction && !commitWithRead) await batch.run(['COMMIT']);
      return { outcome: 'unknown-node' };
    }
    // The read answers one row whenever the node is known.
    if (!state) throw new Error('the slot read answered no row');
    if (!state.controls) this.controls.forget(org);
    if (state.grouped) this.grouped.add(org);
    else this.grouped.delete(org);
    // The node's groups count only where a slot may be taken under the lock; the first time an
    // org turns out to have some, they are read on their own.
    let groups: NodeInstanceGroup[] | null = null;
    if (state.grouped && !commitWithRead) {
      const [row] = groupRows ?? ((await batch.run([NODE_GROUPS.with(org, node)])) as NodeGroupsRow[][])[0]!;
      groups = row!.instance_groups;
    }
    const question: ReadQuestion = {
      ...request,
      haGroup: mirrored.ha_group,
      held: state.held.map(fromJson),
      now: state.now,
      policyStopped: state.policy_stopped,
      groupLimit: allowedDown(state.group_limit ?? 1, state.group_size ?? 0),
      ...(state.controls &&
        state.node && {
          controls: {
            of: this.controls.of(org, state.controls),
            node: state.node,
            steps: endedSteps(state.soaking),
          },
        }),
      ...(groups && { instanceGroups: groups }),
      ...(state.busy && {
        busy: {
          reason: state.busy.reason,
          until: new Date(state.busy.until),
          declaredBy: state.busy.declared_by,
        },
      }),
    };
    return { question, taken: state.taken ? fromJson(state.taken) : undefined };
  }

  /**
   * The fleet budgets covering the node, in name order (the order their locks are taken in, after
   * the group's, so two grants never wait on each other in a cycle), each with how many nodes it
   * lets be down. What a percentage covers does not change with the slots: it is counted before
   * any lock, when the last count is not fresh (covered-counts.ts).
   */
  private async budgetLimits(batch: StatementBatch, question: ReadQuestion): Promise<CoveringBudget[]> {
    const budgets = question.controls?.of.budgetsCovering(question.controls.node) ?? [];
    if (budgets.length === 0) return [];
    const { org } = question;
    const covered = new Map(budgets.map((budget) => [budget, this.covered.fresh(org, budget)]));
    const uncounted = budgets.filter(
      (budget) => isPercent(budget.maxUnavailable) && covered.get(budget) === undefined,
    );
    if (uncounted.length > 0) {
      const counts = (await batch.run(
        uncounted.map((budget) => BUDGET_COVERED.with(...budgetSelection(org, budget.selector))),
      )) as BudgetCoveredRow[][];
      uncounted.forEach((budget, index) => {
        const count = counts[index]![0]!.covered;
        this.covered.remember(org, budget, count);
        covered.set(budget, count);
      });
    }
    return budgets.map((budget) => ({
      budget,
      covered: covered.get(budget),
      allowed: allowedDown(budget.maxUnavailable, covered.get(budget) ?? 0),
    }));
  }

  /** Why the budgets refused the node: which is full, and who holds it. */
  private async budgetRefusal(
    batch: StatementBatch,
    question: ReadQuestion,
    budgets: readonly CoveringBudget[],
  ): Promise<GateRefusal | undefined> {
    if (budgets.length === 0) return undefined;
    const down = (await batch.run(
      budgets.map(({ budget }) => BUDGET_DOWN.with(...budgetSelection(question.org, budget.selector))),
    )) as BudgetDownRow[][];
    return budgetRefusal(
      question.node,
      budgets.map(({ budget, covered }, index) => ({ budget, covered, down: down[index]![0]!.down })),
    );
  }

  /** Why the node's instance groups refused it: which would be impacted beyond its budget, and by whom. */
  private async instanceGroupRefusal(
    batch: StatementBatch,
    question: ReadQuestion,
    groups: readonly NodeInstanceGroup[],
  ): Promise<GateRefusal | undefined> {
    if (groups.length === 0) return undefined;
    const rows = (await batch.run(
      groups.map(({ group }) => INSTANCE_GROUP_IMPACTED.with(question.org, question.node, group)),
    )) as InstanceGroupImpactedRow[][];
    for (const [index, group] of groups.entries()) {
      const refusal = checkInstanceGroup(question.node, { ...group, impacted: rows[index]![0]!.impacted });
      if (refusal) return refusal;
    }
    return undefined;
  }

  /** Carries out the releases the rule decided, and commits when the batch owns the transaction. */
  private async releaseAll(
    batch: StatementBatch,
    release: readonly { grant: UpgradeGrant; reason: UpgradeReleaseReason }[],
  ): Promise<ReleasedGrant[]> {
    const results = await batch.run([
      ...release.map(({ grant, reason }) => this.releaseCall(grant, reason, releaseConditions(reason))),
      ...(batch.ownsTransaction ? ['COMMIT' as const] : []),
    ]);
    return release.flatMap(({ reason }, index) =>
      (results[index] as ReleasedRow[]).map((row) => toReleased(row, reason)),
    );
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
        released.push(...rows.map((row) => toReleased(row, reason)));
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
    const [existing]: GrantRow[] = await manager.query(AGENT_SLOT_FOR_UPDATE, [request.org, request.node]);
    const params = [request.org, request.node, request.managementPolicy, request.error, node.ha_group];
    // An UPDATE answers [rows, count], an INSERT its rows.
    const [halted] = existing
      ? ((await manager.query(HALT_HELD, params)) as [GrantRow[], number])[0]
      : ((await manager.query(HALT_NEW, [...params, request.failedAt])) as GrantRow[]);
    // The slot's row is locked (held) or was just written (new): either answers it.
    if (!halted) throw new Error('the halted slot was not written');
    const grant = toGrant(halted);
    // Already halted: the latest error is noted, the halt itself is not news.
    if (existing?.halted_at) return grant;
    if (!existing) {
      await this.recordHistory(manager, halted, 'granted');
      await this.outbox.append(manager, UpgradeGranted, [grant.org, grant.node], grantPayload(grant));
    }
    await this.recordHistory(manager, halted, 'halted', request.error);
    await this.outbox.append(manager, UpgradeHalted, [grant.org, grant.node], {
      ...grantPayload(grant),
      haltedAt: grant.haltedAt!.toISOString(),
      error: grant.haltError,
    });
    return grant;
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

  private async recordHistory(
    manager: EntityManager,
    grant: GrantRow,
    event: 'granted' | 'halted',
    reason: string | null = null,
  ): Promise<void> {
    await manager.query(RECORD_HISTORY, [
      grant.org,
      grant.node,
      grant.holder_kind,
      grant.ha_group,
      grant.management_policy,
      event,
      reason,
      grant.granted_at,
    ]);
  }

  /**
   * Takes the slot the rule granted, from the moment the slots were read; within the covering
   * budgets and the node's instance groups, whose locks the batch takes first, when there are any.
   */
  private grantCall(
    question: SlotQuestion & SlotRequest,
    budgets: readonly CoveringBudget[],
    groups: readonly NodeInstanceGroup[],
  ): BatchCall {
    const values = [
      ...keyOf(question),
      question.haGroup,
      question.managementPolicy,
      question.now,
      question.leaseSeconds,
      UpgradeGranted.subject(question.org, question.node),
      JSON.stringify(this.outbox.headers()),
    ] as const;
    if (budgets.length === 0 && groups.length === 0) return this.statements.grant.with(...values);
    const limits: BudgetLimit[] = budgets.map(({ budget, allowed }) => ({
      selector: budget.selector,
      allowed,
    }));
    return this.statements.grantWithin.with(...values, JSON.stringify(limits), JSON.stringify(groups));
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

/** A grant the rule allowed and the disruption gate refused. */
function gated(refusal: GateRefusal, haGroup: string | null, released: ReleasedGrant[]): SlotAnswer {
  return { outcome: 'gated', haGroup, refusal, released };
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

/** Takes the semaphore's advisory lock until the transaction ends. */
async function lockGroup(tx: EntityManager, org: string, semaphore: string): Promise<void> {
  await tx.query(LOCK_SEMAPHORE, [org, semaphore]);
}
