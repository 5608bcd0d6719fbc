/**
 * One HA group's rolling upgrade for one deployment policy, one tick at a time. Only members
 * meant to run the service (those the policy is placed on) are passed in and counted. Rules:
 * one member moves at a time; the next starts only once the previous reports the new version
 * running; a member that does not within the deadline halts the group, leaving the rest on
 * their version; offline members are skipped (not moved, not waited for) and move one at a time
 * like the others once they are back; a member is never moved while it is the only one serving.
 */
import { isDueToMove, isOnTarget, isServing, isSettling, moveOrder, runs } from './member-facts';
import {
  type GroupReport,
  type GroupRolloutState,
  type HaltedGroup,
  type InFlightMember,
  type RolloutEvent,
  type RolloutMember,
  type VersionChange,
} from './rollout.types';

export interface GroupTick {
  readonly group: string;
  readonly members: readonly RolloutMember[];
  readonly previous: GroupRolloutState | undefined;
  readonly now: Date;
  readonly memberDeadlineMs: number;
}

export interface GroupOutcome {
  readonly state: GroupRolloutState;
  readonly changes: VersionChange[];
  readonly report: GroupReport;
  readonly events: RolloutEvent[];
}

export function planGroup(tick: GroupTick): GroupOutcome {
  const { group, members, now } = tick;
  const byNode = new Map(members.map((member) => [member.node, member]));
  const changes: VersionChange[] = [];
  const events: RolloutEvent[] = [];
  const nowIso = now.toISOString();

  let halted = reviewHalt(tick.previous?.halted ?? null, byNode, group, events);
  let inFlight: InFlightMember | null = tick.previous?.inFlight ?? null;

  if (inFlight) {
    const member = byNode.get(inFlight.node);
    if (!member) {
      events.push({
        type: 'member-released',
        node: inFlight.node,
        group,
        reason: 'no longer meant to run the service',
      });
      inFlight = null;
    } else if (member.targetVersion !== inFlight.version) {
      // The target moved on: the member is due again and will be picked first if it is down.
      inFlight = null;
    } else if (runs(member, inFlight.version) && member.desiredVersion === inFlight.version) {
      events.push({ type: 'member-upgraded', node: member.node, group, version: inFlight.version });
      inFlight = null;
    } else if (!member.online) {
      events.push({ type: 'member-released', node: member.node, group, reason: 'went offline while moving' });
      inFlight = null;
    } else if (overdue(inFlight, now, tick.memberDeadlineMs)) {
      halted = haltFor(member, inFlight, tick.memberDeadlineMs, nowIso);
      events.push({ type: 'group-halted', group, node: member.node, reason: halted.reason });
      inFlight = null;
    } else if (member.desiredVersion !== inFlight.version) {
      // The change of an earlier tick was not written (e.g. the leader stopped): write it again.
      changes.push({ node: member.node, from: member.desiredVersion, version: inFlight.version });
    }
  }

  const due = members.filter(isDueToMove);
  if (!inFlight && !halted && due.length > 0) inFlight = adoptSettling(members, nowIso);

  const report = (
    status: GroupReport['status'],
    extra: { node?: string; reason?: string } = {},
  ): GroupReport => ({
    group,
    status,
    ...extra,
    members: members.length,
    upgraded: members.filter(isOnTarget).length,
  });
  const outcome = (state: GroupRolloutState, groupReport: GroupReport): GroupOutcome => ({
    state,
    changes,
    report: groupReport,
    events,
  });

  if (halted)
    return outcome(
      { inFlight: null, halted },
      report('halted', { node: halted.node, reason: halted.reason }),
    );
  if (inFlight) return outcome({ inFlight, halted: null }, report('upgrading', { node: inFlight.node }));

  const ready = due.filter((member) => member.online).sort(moveOrder);
  const next = ready[0];
  if (!next) {
    return outcome(
      { inFlight: null, halted: null },
      due.length > 0
        ? report('waiting-offline', { reason: `${due.length} member(s) to move are offline` })
        : report('done'),
    );
  }
  const othersServe = members.some((member) => member !== next && isServing(member));
  if (isServing(next) && !othersServe) {
    return outcome(
      { inFlight: null, halted: null },
      report('blocked', {
        node: next.node,
        reason: `${next.node} is the only member running the service; moving it would stop the service in the group`,
      }),
    );
  }
  changes.push({ node: next.node, from: next.desiredVersion, version: next.targetVersion });
  events.push({ type: 'member-started', node: next.node, group, version: next.targetVersion });
  const started: InFlightMember = { node: next.node, version: next.targetVersion, since: nowIso };
  return outcome({ inFlight: started, halted: null }, report('upgrading', { node: next.node }));
}

/** A halt stands until its member is gone, its target changes, or it comes up after all. */
function reviewHalt(
  halted: HaltedGroup | null,
  byNode: ReadonlyMap<string, RolloutMember>,
  group: string,
  events: RolloutEvent[],
): HaltedGroup | null {
  if (!halted) return null;
  const member = byNode.get(halted.node);
  if (!member || member.targetVersion !== halted.version) return null;
  if (runs(member, halted.version)) {
    events.push({ type: 'member-upgraded', node: member.node, group, version: halted.version });
    return null;
  }
  return halted;
}

/**
 * A member already asked for its target that does not run it counts as in flight even when the
 * state does not say so (a lost or stale state after a leader change): no second member moves.
 */
function adoptSettling(members: readonly RolloutMember[], nowIso: string): InFlightMember | null {
  const settling = members.filter((member) => member.online && isSettling(member)).sort(moveOrder)[0];
  return settling ? { node: settling.node, version: settling.targetVersion, since: nowIso } : null;
}

export function overdue(inFlight: InFlightMember, now: Date, deadlineMs: number): boolean {
  return now.getTime() - new Date(inFlight.since).getTime() >= deadlineMs;
}

function haltFor(
  member: RolloutMember,
  inFlight: InFlightMember,
  deadlineMs: number,
  at: string,
): HaltedGroup {
  const last = member.actual ? `${member.actual.version} ${member.actual.state}` : 'nothing';
  return {
    node: member.node,
    version: inFlight.version,
    reason: `${member.node} did not report ${inFlight.version} running within ${Math.round(deadlineMs / 1000)}s (last reported: ${last})`,
    at,
  };
}
