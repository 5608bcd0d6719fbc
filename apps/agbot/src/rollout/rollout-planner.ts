/**
 * Rolls a deployment policy's service version over the nodes it is placed on, one tick at a
 * time: given what every member is asked to run and reports running, and the state of the last
 * tick, answers the desired-version changes to write now and the state to keep. Pure and
 * deterministic: the same input always gives the same plan.
 *
 * Guarantees (docs/architecture.md, invariant 2): within an HA group one member moves at a time, the next
 * only once the previous reports its new version running, and never the only member serving.
 * Nodes newly placed (nothing asked of them yet) get their target at once: that stops nothing.
 *
 * The caller persists `state` before (or with) writing `changes`; a replica that takes over
 * reads it back with readRolloutState. Changes are idempotent: an in-flight member whose change
 * was not written is given it again, and a member already asked for its target never is.
 */
import { planGroup } from './group-rollout';
import { EMPTY_ROLLOUT_STATE, readRolloutState } from './rollout-state';
import {
  type GroupReport,
  type GroupRolloutState,
  type RolloutEvent,
  type RolloutInput,
  type RolloutMember,
  type RolloutPlan,
  type VersionChange,
} from './rollout.types';
import { planUngrouped } from './ungrouped-rollout';

export class RolloutPlanner {
  plan(input: RolloutInput): RolloutPlan {
    const previous = input.state ? readRolloutState(input.state) : EMPTY_ROLLOUT_STATE;
    const changes: VersionChange[] = [];
    const events: RolloutEvent[] = [];

    for (const member of input.members) {
      if (member.desiredVersion === null) {
        changes.push({ node: member.node, from: null, version: member.targetVersion });
      }
    }

    const byGroup = new Map<string, RolloutMember[]>();
    const ungrouped: RolloutMember[] = [];
    for (const member of input.members) {
      if (member.haGroup === null) {
        ungrouped.push(member);
      } else {
        const list = byGroup.get(member.haGroup) ?? [];
        list.push(member);
        byGroup.set(member.haGroup, list);
      }
    }

    const groups: Record<string, GroupRolloutState> = {};
    const reports: GroupReport[] = [];
    const names = [...new Set([...byGroup.keys(), ...Object.keys(previous.groups)])].sort();
    for (const group of names) {
      const outcome = planGroup({
        group,
        members: byGroup.get(group) ?? [],
        previous: previous.groups[group],
        now: input.now,
        memberDeadlineMs: input.memberDeadlineMs,
      });
      changes.push(...outcome.changes);
      events.push(...outcome.events);
      if (outcome.state.inFlight || outcome.state.halted) groups[group] = outcome.state;
      if (byGroup.has(group)) reports.push(outcome.report);
    }

    const outside = planUngrouped({
      members: ungrouped,
      previous: previous.ungrouped,
      now: input.now,
      parallelism: input.parallelism,
      memberDeadlineMs: input.memberDeadlineMs,
    });
    changes.push(...outside.changes);
    events.push(...outside.events);

    return {
      deploymentPolicy: input.deploymentPolicy,
      changes,
      state: { groups, ungrouped: outside.state },
      groups: reports,
      ungrouped: outside.report,
      events,
    };
  }
}
