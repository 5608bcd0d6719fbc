/**
 * A budget's check (docs/architecture.md, invariant 9): a node may start a disruption when the
 * other covered nodes already down are fewer than the budget allows. A node already down counts
 * once whatever it holds, and its own slots never block it.
 */
import { type UnavailableLimit, allowedDown } from './unavailable-limit';

export interface BudgetUsage {
  name: string;
  /** Words for what it covers, such as `site=ams` or `HA group line-1`. */
  scope: string;
  limit: UnavailableLimit;
  /** How many nodes it covers; needed only for a percentage. */
  covered?: number;
  /** The covered nodes that hold a disruption slot now. */
  down: readonly string[];
}

export interface BudgetRefusal {
  reason: 'budget';
  control: string;
  allowed: number;
  holders: string[];
  message: string;
}

export function checkBudget(node: string, usage: BudgetUsage): BudgetRefusal | undefined {
  const others = [...new Set(usage.down)].filter((down) => down !== node).sort();
  const allowed = allowedDown(usage.limit, usage.covered ?? 0);
  if (others.length < allowed) return undefined;
  const shown = others.slice(0, 5).join(', ') + (others.length > 5 ? `, … (${others.length - 5} more)` : '');
  return {
    reason: 'budget',
    control: usage.name,
    allowed,
    holders: others,
    message: `budget "${usage.name}" (${usage.scope}, at most ${usage.limit}${usage.covered === undefined ? '' : ` of ${usage.covered}`} down): ${others.length} of ${allowed} held by ${shown}`,
  };
}
