/**
 * Whether a policy's rollout can still go on by itself, or waits for an operator: the rules
 * behind `careen nmp watch` ending with exit 3 instead of watching a halt, or a missing package,
 * forever. Pure.
 */
import { type ManagementStatusValue, TERMINAL_STATUSES, UNHEALTHY_STATUSES } from '@careen/contracts';
import { type MemberView, type RolloutView } from './rollout-view';

/** An HA group that waits for an operator, and the member it waits for. */
export interface HeldGroup {
  name: string;
  halted: MemberView;
}

/** A member with one of these is installing or undoing an install: its group is still moving. */
const UNDER_WAY = ['downloading', 'initiated', 'failed', 'rolling-back', 'reset'];

const isFinal = (status: string) => TERMINAL_STATUSES.includes(status as ManagementStatusValue);
const isUnhealthy = (status: string) => UNHEALTHY_STATUSES.includes(status as ManagementStatusValue);

/**
 * The HA groups that hold the rollout up when nothing else can move: every node without a
 * final status waits in a group halted by a member that ended unhealthy (`rollback-failed`),
 * which no agent report will change. Empty while any node can still get on.
 */
export function groupsWaitingForAnOperator(view: RolloutView): HeldGroup[] {
  if (view.done || view.policy.state === 'disabled') return [];
  const held = new Map<string, HeldGroup>();
  for (const { name, halted } of view.groups) {
    if (name !== null && halted && isFinal(halted.status) && isUnhealthy(halted.status))
      held.set(name, { name, halted });
  }
  if (held.size === 0) return [];
  const canMove = view.groups.some((group) =>
    group.members.some(
      (member) =>
        !isFinal(member.status) &&
        (group.name === null || !held.has(group.name) || UNDER_WAY.includes(member.status)),
    ),
  );
  return canMove ? [] : [...held.values()];
}

/**
 * Whether every node not done waits for a package no one published (`no-package`), which no
 * agent report will change either.
 */
export function waitsForPackage(view: RolloutView): boolean {
  if (view.done || !view.missingPackage) return false;
  const noPackage = view.groups.flatMap((group) => group.members).filter((m) => m.status === 'no-package');
  return noPackage.length > 0 && noPackage.length === view.total - view.final;
}
