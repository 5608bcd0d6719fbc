/**
 * When each node was down, from the records of whoever took it down — an agent's upgrade from
 * `initiated` to its end, a maintenance session's host from IN_MAINTENANCE to
 * MAINTENANCE_COMPLETE — and the pairs of members of one HA group that were down at once.
 */
import { type TimelineEntry } from '@careen/agent/src/index';

export interface DownSpan {
  node: string;
  from: number;
  to: number;
  what: string;
}

const INSTALL_ENDS = ['successful', 'rolled-back', 'rollback-failed'];

/** Agent upgrades, from the agents' own status steps. */
export function upgradeSpans(timeline: readonly TimelineEntry[]): DownSpan[] {
  const spans: DownSpan[] = [];
  const initiated = new Map<string, number>();
  for (const entry of timeline) {
    if (entry.status === 'initiated') initiated.set(entry.node, entry.at.getTime());
    if (INSTALL_ENDS.includes(entry.status) && initiated.has(entry.node)) {
      spans.push({
        node: entry.node,
        from: initiated.get(entry.node)!,
        to: entry.at.getTime(),
        what: 'upgrade',
      });
      initiated.delete(entry.node);
    }
  }
  // An install not ended yet is down until now.
  for (const [node, from] of initiated) spans.push({ node, from, to: Infinity, what: 'upgrade' });
  return spans;
}

/** Hosts in maintenance, from a session's timeline. */
export function maintenanceSpans(
  sessionTimeline: readonly { at: string; kind: string; host: string | null; state: string | null }[],
): DownSpan[] {
  const spans: DownSpan[] = [];
  const entered = new Map<string, number>();
  for (const entry of sessionTimeline) {
    if (entry.kind !== 'sent' || !entry.host) continue;
    if (entry.state === 'IN_MAINTENANCE') entered.set(entry.host, Date.parse(entry.at));
    if (entry.state === 'MAINTENANCE_COMPLETE')
      spans.push({
        node: entry.host,
        from: entered.get(entry.host)!,
        to: Date.parse(entry.at),
        what: 'maintenance',
      });
  }
  return spans;
}

/** Each pair of members of one group down at once, said in words; empty when there is none. */
export function overlapsWithinGroups(
  spans: readonly DownSpan[],
  groupOf: ReadonlyMap<string, string | null>,
): string[] {
  return spans.flatMap((a) =>
    spans
      .filter((b) => a.node < b.node && groupOf.get(a.node) && groupOf.get(a.node) === groupOf.get(b.node))
      .filter((b) => a.from < b.to && b.from < a.to)
      .map((b) => `${a.what} of ${a.node} and ${b.what} of ${b.node}`),
  );
}
