/**
 * Collects which nodes' desired workloads one placement step touched and answers those whose
 * workloads really changed, so callers write only what moved.
 */
import { type DesiredWorkload, type NodeWorkloads } from './placement.types';

export class AssignmentTracker {
  private readonly before = new Map<string, { org: string; node: string; workloads: string }>();

  constructor(private readonly workloadsOf: (key: string) => readonly DesiredWorkload[]) {}

  /** Call before changing the node's workloads; only the first call per node counts. */
  touch(key: string, org: string, node: string): void {
    if (!this.before.has(key)) {
      this.before.set(key, { org, node, workloads: JSON.stringify(this.workloadsOf(key)) });
    }
  }

  /** Forget a node that no longer exists. */
  forget(key: string): void {
    this.before.delete(key);
  }

  changed(): NodeWorkloads[] {
    const result: NodeWorkloads[] = [];
    for (const [key, { org, node, workloads }] of this.before) {
      const now = this.workloadsOf(key);
      if (JSON.stringify(now) !== workloads) result.push({ org, node, workloads: now });
    }
    return result.sort((a, b) => compare(a.org, b.org) || compare(a.node, b.node));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
