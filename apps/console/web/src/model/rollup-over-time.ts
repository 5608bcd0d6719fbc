/**
 * A management policy's counts by status over time, from its nodes' current statuses and its
 * history (newest first): walking back through the history, each entry undoes itself — before
 * it, its node had the status of its next older entry. A node whose older statuses lie beyond
 * the history read counts as `unknown` before its oldest entry there.
 */
export interface HistoryStatus {
  node: string | null;
  kind: string;
  event: string;
  at: string;
}

export interface RollupPoint {
  at: string;
  counts: Record<string, number>;
}

/** Oldest first: the counts right after each status entry read, then the counts now. */
export function rollupOverTime(
  current: { node: string; status: string }[],
  newestFirst: HistoryStatus[],
  now: string,
): RollupPoint[] {
  const statusOf = new Map(current.map((entry) => [entry.node, entry.status]));
  const steps = newestFirst.filter(
    (entry): entry is HistoryStatus & { node: string } => entry.kind === 'status' && entry.node !== null,
  );
  // Each entry's node's status before it: the event of that node's next older entry.
  const undos: { step: HistoryStatus & { node: string }; before: string }[] = [];
  const olderOf = new Map<string, string>();
  for (const step of [...steps].reverse()) {
    undos.push({ step, before: olderOf.get(step.node) ?? 'unknown' });
    olderOf.set(step.node, step.event);
  }
  const points: RollupPoint[] = [{ at: now, counts: countOf(statusOf) }];
  for (const { step, before } of undos.reverse()) {
    points.push({ at: step.at, counts: countOf(statusOf) });
    statusOf.set(step.node, before);
  }
  return points.reverse();
}

function countOf(statusOf: Map<string, string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statusOf.values()) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
