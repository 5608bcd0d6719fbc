/**
 * How many nodes each percentage budget covers, counted again at most every few seconds, as
 * Kubernetes's disruption controller keeps a PodDisruptionBudget's expected pods rather than
 * counting them on every eviction. Counting a budget over a whole org cost about 3 ms of Postgres
 * per grant at 10,000 nodes; the holders it allows are still read under its lock each time. A
 * node added or removed meanwhile moves the limit a few seconds late, by at most the rounding of
 * one node per ten for a 10 % budget.
 */
import { type Budget } from '@careen/disruption';

export const COVERED_MAX_AGE_MS = 5_000;

export class CoveredCounts {
  private readonly counts = new Map<string, { at: number; covered: number }>();

  constructor(
    private readonly maxAgeMs = COVERED_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The budget's count when it is fresh enough. */
  fresh(org: string, budget: Budget): number | undefined {
    const known = this.counts.get(keyOf(org, budget));
    return known && this.now() - known.at < this.maxAgeMs ? known.covered : undefined;
  }

  remember(org: string, budget: Budget, covered: number): void {
    if (this.counts.size > 10_000) this.counts.clear();
    this.counts.set(keyOf(org, budget), { at: this.now(), covered });
  }
}

/** A budget changed (its selector) counts anew. */
function keyOf(org: string, budget: Budget): string {
  return `${org}\u0000${budget.name}\u0000${JSON.stringify(budget.selector)}`;
}
