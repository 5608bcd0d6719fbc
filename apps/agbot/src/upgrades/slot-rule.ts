/**
 * The HA-group semaphore's rule (docs/architecture.md, Agent-upgrade grants; invariant 1), as
 * a pure decision over the slots held in a node's group, read under the group's advisory lock.
 * The grant store reads those slots and carries the decision out in the same transaction;
 * nothing here touches Postgres, so every case of the rule is a plain unit test. One answer is
 * also written in SQL: where nothing is held in the group and the policy may run, the grant's
 * read takes the slot itself (grant-statements.ts), so a change to the answer for a free group
 * goes there too; grant-rule-parity.int-spec.ts fails while the two answer differently.
 *
 * - Slots whose lease ran out (unless halted: a halted slot has no lease end) or whose holder
 *   is no longer in the group are released first.
 * - A halted holder keeps its slot whatever it asks for; the halt follows the policy it asks for.
 * - Asking again renews; an agent asking for another policy gives its slot back and asks anew
 *   (one policy runs on a node at a time).
 * - A new agent-upgrade grant for a stopped (disabled or paused) policy is refused.
 * - While a member is halted, no other member starts.
 * - Fewer other members down (holding a slot of any kind) than the group's maxUnavailable lets
 *   any kind in (one by default: then an agent upgrade or a maintenance needs every other
 *   member's slot free). Beyond that, a FleetLock reboot still needs no agent upgrade or
 *   maintenance in the group and fewer FleetLock holders than the group admits. A node's own
 *   slots never block it.
 *
 * Windows, freezes and fleet budgets are the disruption gate's (disruption/disruption-gate.ts),
 * asked once this rule grants.
 */
import { type UpgradeHolderKind, type UpgradeReleaseReason } from '@careen/contracts';
import { type UpgradeGrant } from './upgrade-grant';

export interface SlotQuestion {
  node: string;
  kind: UpgradeHolderKind;
  managementPolicy: string | null;
  /** FleetLock holders the group admits at once. */
  fleetLockSlots: number;
  /** Members the group lets be down at once: its maxUnavailable for its size; 1 unless set. */
  groupLimit: number;
  /** The node's group, as the mirror has it now; null for a node outside any group. */
  haGroup: string | null;
  /** The slots of the node and of its group's members, as held when the lock was taken. */
  held: readonly UpgradeGrant[];
  /** The database's clock when the slots were read. */
  now: Date;
  /** The policy asked for is disabled or paused. */
  policyStopped: boolean;
}

export interface SlotRelease {
  grant: UpgradeGrant;
  reason: UpgradeReleaseReason;
}

export type SlotVerdict =
  | { outcome: 'renew'; grant: UpgradeGrant }
  | { outcome: 'grant' }
  | { outcome: 'refuse'; blocker: UpgradeGrant }
  | { outcome: 'policy-stopped' };

export interface SlotDecision {
  /** Slots to release before answering, in key order. */
  release: SlotRelease[];
  answer: SlotVerdict;
}

export function decideSlot(question: SlotQuestion): SlotDecision {
  const release: SlotRelease[] = [];
  const kept: UpgradeGrant[] = [];
  for (const grant of [...question.held].sort(byKey)) {
    if (grant.haGroup !== question.haGroup) release.push({ grant, reason: 'left-group' });
    else if (!grant.haltedAt && grant.leaseExpiresAt <= question.now)
      release.push({ grant, reason: 'lease-expired' });
    else kept.push(grant);
  }

  const own = kept.find((grant) => grant.node === question.node && grant.kind === question.kind);
  if (own && (own.haltedAt || !changesPolicy(question, own)))
    return { release, answer: { outcome: 'renew', grant: own } };
  if (own) release.push({ grant: own, reason: 'released' });
  return { release, answer: answerForNewSlot(question, kept) };
}

/** What a node that holds no slot of this kind is told. */
function answerForNewSlot(question: SlotQuestion, held: readonly UpgradeGrant[]): SlotVerdict {
  if (question.kind === 'agent-upgrade' && question.policyStopped) return { outcome: 'policy-stopped' };
  const others = held.filter((grant) => grant.node !== question.node && grant.haGroup === question.haGroup);
  if (others.length === 0 || question.haGroup === null) return { outcome: 'grant' };
  const halted = others.filter((grant) => grant.haltedAt !== null);
  // A halted member is named first: it is why the group waits.
  if (halted.length > 0) return { outcome: 'refuse', blocker: [...halted].sort(oldestFirst)[0]! };
  if (new Set(others.map((grant) => grant.node)).size < question.groupLimit) return { outcome: 'grant' };
  const exclusive = others.filter((grant) => grant.kind !== 'fleetlock');
  if (exclusive.length > 0) {
    return { outcome: 'refuse', blocker: [...exclusive].sort(oldestFirst)[0]! };
  }
  const rebooting = new Set(others.filter((grant) => grant.kind === 'fleetlock').map((grant) => grant.node));
  if (question.kind !== 'fleetlock' || rebooting.size >= question.fleetLockSlots) {
    return { outcome: 'refuse', blocker: [...others].sort(oldestFirst)[0]! };
  }
  return { outcome: 'grant' };
}

function changesPolicy(question: SlotQuestion, own: UpgradeGrant): boolean {
  return question.kind === 'agent-upgrade' && own.managementPolicy !== question.managementPolicy;
}

function byKey(a: UpgradeGrant, b: UpgradeGrant): number {
  return compare(a.node, b.node) || compare(a.kind, b.kind);
}

function oldestFirst(a: UpgradeGrant, b: UpgradeGrant): number {
  return a.grantedAt.getTime() - b.grantedAt.getTime() || compare(a.node, b.node);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
