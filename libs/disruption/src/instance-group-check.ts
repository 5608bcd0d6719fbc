/**
 * An instance group's budget (a VNF manager's `max_impacted_members`, Fenix's constraints API):
 * a node may start a disruption while the group's instances it holds, with those on other nodes
 * already down, stay within what the group allows impacted at once. A node holding more than that
 * on its own may still go, but only while none of the group is down elsewhere: otherwise it
 * could never go at all. The same rule orders a maintenance session's hosts.
 */
import { type BudgetRefusal } from './budget-check';
import { type SoakRefusal } from './soak';

export interface InstanceGroupUsage {
  group: string;
  project: string;
  maxImpacted: number;
  /** The group's instances on the node asking. */
  own: number;
  /** Other nodes down (holding a disruption slot) with the group's instances on each. */
  impacted: readonly { node: string; instances: number }[];
}

/**
 * Why the group keeps a node waiting at `now` while it recovers (a VNF manager's
 * `recovery_time`) from the disruption of another of its nodes that ended at `ended.at`.
 */
export function instanceGroupRecovery(
  group: { group: string; project: string; recoverySeconds: number },
  ended: { node: string; at: Date } | null,
  now: Date,
): SoakRefusal | undefined {
  if (!ended || group.recoverySeconds <= 0) return undefined;
  const until = new Date(ended.at.getTime() + group.recoverySeconds * 1000);
  if (until <= now) return undefined;
  return {
    reason: 'soak',
    control: `instance-group:${group.group}`,
    node: ended.node,
    until,
    message: `instance group "${group.group}" of project ${group.project} recovers until ${until.toISOString()} (${group.recoverySeconds} s after ${ended.node} was done at ${ended.at.toISOString()})`,
  };
}

/** Whether `own` more impacted instances fit beside `others` already impacted. */
export function fitsInstanceGroup(maxImpacted: number, own: number, others: number): boolean {
  return others === 0 || others + own <= maxImpacted;
}

export function checkInstanceGroup(node: string, usage: InstanceGroupUsage): BudgetRefusal | undefined {
  const impacted = usage.impacted.filter((each) => each.node !== node && each.instances > 0);
  const others = impacted.reduce((sum, each) => sum + each.instances, 0);
  if (fitsInstanceGroup(usage.maxImpacted, usage.own, others)) return undefined;
  const holders = impacted.map((each) => each.node).sort();
  const shown =
    holders.slice(0, 5).join(', ') + (holders.length > 5 ? `, … (${holders.length - 5} more)` : '');
  return {
    reason: 'budget',
    control: `instance-group:${usage.group}`,
    allowed: usage.maxImpacted,
    holders,
    message: `instance group "${usage.group}" of project ${usage.project} (at most ${usage.maxImpacted} of its instances impacted at once): ${others} impacted on ${shown}, and ${node} holds ${usage.own} more`,
  };
}
