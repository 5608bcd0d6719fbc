/**
 * An instance group's budget (a VNF manager's `max_impacted_members`, Fenix's constraints API):
 * a node may start a disruption while the group's instances it holds, with those on other nodes
 * already down, stay within what the group allows impacted at once. A node holding more than that
 * on its own may still go, but only while none of the group is down elsewhere: otherwise it
 * could never go at all. The same rule orders a maintenance session's hosts.
 */
import { type BudgetRefusal } from './budget-check';

export interface InstanceGroupUsage {
  group: string;
  project: string;
  maxImpacted: number;
  /** The group's instances on the node asking. */
  own: number;
  /** Other nodes down (holding a disruption slot) with the group's instances on each. */
  impacted: readonly { node: string; instances: number }[];
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
