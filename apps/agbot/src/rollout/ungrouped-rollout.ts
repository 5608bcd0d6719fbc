/**
 * The rolling upgrade of a policy's nodes outside HA groups: up to `parallelism` move at once.
 * A node that does not come up within the deadline is reported overdue and keeps its slot until
 * it does, goes offline or leaves the policy, so a version that never starts stops spreading
 * once `parallelism` nodes are stuck on it. Offline nodes are skipped until they are back.
 */
import { overdue } from './group-rollout';
import { isDueToMove, isOnTarget, isSettling, moveOrder, runs } from './member-facts';
import {
  type InFlightMember,
  type RolloutEvent,
  type RolloutMember,
  type RolloutPlan,
  type VersionChange,
} from './rollout.types';

export interface UngroupedTick {
  readonly members: readonly RolloutMember[];
  readonly previous: Readonly<Record<string, InFlightMember>>;
  readonly now: Date;
  readonly parallelism: number;
  readonly memberDeadlineMs: number;
}

export interface UngroupedOutcome {
  readonly state: Record<string, InFlightMember>;
  readonly changes: VersionChange[];
  readonly report: RolloutPlan['ungrouped'];
  readonly events: RolloutEvent[];
}

export function planUngrouped(tick: UngroupedTick): UngroupedOutcome {
  const { members, now } = tick;
  const byNode = new Map(members.map((member) => [member.node, member]));
  const nowIso = now.toISOString();
  const changes: VersionChange[] = [];
  const events: RolloutEvent[] = [];
  const inFlight = new Map<string, InFlightMember>();

  for (const entry of Object.values(tick.previous)) {
    const member = byNode.get(entry.node);
    if (!member) {
      events.push({
        type: 'member-released',
        node: entry.node,
        group: null,
        reason: 'no longer meant to run the service',
      });
    } else if (member.targetVersion !== entry.version) {
      continue;
    } else if (runs(member, entry.version) && member.desiredVersion === entry.version) {
      events.push({ type: 'member-upgraded', node: member.node, group: null, version: entry.version });
    } else if (!member.online) {
      events.push({
        type: 'member-released',
        node: member.node,
        group: null,
        reason: 'went offline while moving',
      });
    } else {
      let kept = entry;
      if (member.desiredVersion !== entry.version) {
        changes.push({ node: member.node, from: member.desiredVersion, version: entry.version });
      }
      if (!entry.overdue && overdue(entry, now, tick.memberDeadlineMs)) {
        kept = { ...entry, overdue: true };
        const last = member.actual ? `${member.actual.version} ${member.actual.state}` : 'nothing';
        events.push({
          type: 'member-overdue',
          node: member.node,
          group: null,
          version: entry.version,
          reason: `did not report ${entry.version} running within ${Math.round(tick.memberDeadlineMs / 1000)}s (last reported: ${last})`,
        });
      }
      inFlight.set(member.node, kept);
    }
  }

  const due = members.filter(isDueToMove);
  if (due.length > 0) {
    // Asked for their target but not running it, unknown to the state: they hold a slot too.
    for (const member of members) {
      if (member.online && isSettling(member) && !inFlight.has(member.node)) {
        inFlight.set(member.node, { node: member.node, version: member.targetVersion, since: nowIso });
      }
    }
  }

  const slots = Math.max(0, Math.max(1, Math.floor(tick.parallelism)) - inFlight.size);
  for (const member of due
    .filter((candidate) => candidate.online)
    .sort(moveOrder)
    .slice(0, slots)) {
    changes.push({ node: member.node, from: member.desiredVersion, version: member.targetVersion });
    events.push({ type: 'member-started', node: member.node, group: null, version: member.targetVersion });
    inFlight.set(member.node, { node: member.node, version: member.targetVersion, since: nowIso });
  }

  const state = Object.fromEntries([...inFlight].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    state,
    changes,
    events,
    report: {
      members: members.length,
      inFlight: inFlight.size,
      upgraded: members.filter(isOnTarget).length,
      overdue: Object.values(state)
        .filter((entry) => entry.overdue)
        .map((entry) => entry.node),
    },
  };
}
