/**
 * Replays the grant history of HA groups and reports every instant at which the semaphore's
 * rules were broken: an agent upgrade or a maintenance beside any other holder in a group, more
 * FleetLock holders than slots, or a release of a slot nobody held. Used by the
 * tests and the benchmark to check invariant 1 (docs/architecture.md) from what really happened.
 */
import { type UpgradeHolderKind } from '@careen/contracts';

export interface TimelineEvent {
  id: number;
  org: string;
  node: string;
  kind: UpgradeHolderKind;
  haGroup: string | null;
  /** `halted`: the holder failed and keeps its slot; who holds what does not change. */
  event: 'granted' | 'released' | 'halted';
  reason: string | null;
  at: Date;
}

export interface TimelineViolation {
  org: string;
  haGroup: string;
  at: string;
  problem: string;
}

export function findViolations(
  events: readonly TimelineEvent[],
  fleetLockSlots: number,
): TimelineViolation[] {
  const ordered = [...events].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id - b.id);
  const groups = new Map<string, Map<string, UpgradeHolderKind>>();
  const violations: TimelineViolation[] = [];
  for (const event of ordered) {
    if (event.haGroup === null || event.event === 'halted') continue;
    const groupKey = `${event.org}/${event.haGroup}`;
    const holders = groups.get(groupKey) ?? new Map<string, UpgradeHolderKind>();
    groups.set(groupKey, holders);
    const slot = `${event.node}\u0000${event.kind}`;
    const report = (problem: string) =>
      violations.push({ org: event.org, haGroup: event.haGroup!, at: event.at.toISOString(), problem });
    if (event.event === 'released') {
      if (!holders.delete(slot)) report(`${event.node} released a ${event.kind} slot it did not hold`);
      continue;
    }
    if (holders.has(slot)) report(`${event.node} was granted a ${event.kind} slot it already held`);
    const others = [...holders]
      .filter(([key]) => !key.startsWith(`${event.node}\u0000`))
      .map(([, kind]) => kind);
    if (event.kind !== 'fleetlock' && others.length > 0)
      report(
        `${event.node} was granted its ${event.kind} slot while ${others.length} other member(s) held slots`,
      );
    if (event.kind === 'fleetlock') {
      const exclusive = others.find((kind) => kind !== 'fleetlock');
      if (exclusive) report(`${event.node} was granted a reboot during a ${exclusive} slot`);
      if (others.filter((kind) => kind === 'fleetlock').length >= fleetLockSlots)
        report(`${event.node} was granted a reboot beyond the ${fleetLockSlots} FleetLock slot(s)`);
    }
    holders.set(slot, event.kind);
  }
  return violations;
}

/** What reads the history: a TypeORM manager, or anything else that answers a query's rows. */
export interface HistoryReader {
  query(sql: string): Promise<unknown[]>;
}

interface HistoryRow {
  id: string;
  org: string;
  node: string;
  holder_kind: UpgradeHolderKind;
  ha_group: string | null;
  event: TimelineEvent['event'];
  reason: string | null;
  at: Date;
}

export async function readTimeline(manager: HistoryReader): Promise<TimelineEvent[]> {
  const rows = (await manager.query(
    // By the column h.id: `id` alone would name the text answered ('10' before '9').
    'SELECT h.id::text, org, node, holder_kind, ha_group, event, reason, at FROM agbot.upgrade_grant_history AS h ORDER BY at, h.id',
  )) as HistoryRow[];
  return rows.map((row) => ({
    id: Number(row.id),
    org: row.org,
    node: row.node,
    kind: row.holder_kind,
    haGroup: row.ha_group,
    event: row.event,
    reason: row.reason,
    at: row.at,
  }));
}

/**
 * Who of a set of nodes held slots after each grant and release, replayed over the recorded
 * history: a node counts once whatever it holds. A budget's check (docs/architecture.md,
 * invariant 9) is that no grant leaves more holders than it allows.
 */
export function holdersOverTime(
  events: readonly TimelineEvent[],
  org: string,
  nodes: ReadonlySet<string>,
): { event: TimelineEvent; holders: string[] }[] {
  const ordered = [...events].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id - b.id);
  const held = new Map<string, number>();
  const steps: { event: TimelineEvent; holders: string[] }[] = [];
  for (const event of ordered) {
    if (event.org !== org || !nodes.has(event.node) || event.event === 'halted') continue;
    const slots = (held.get(event.node) ?? 0) + (event.event === 'granted' ? 1 : -1);
    if (slots > 0) held.set(event.node, slots);
    else held.delete(event.node);
    steps.push({ event, holders: [...held.keys()].sort() });
  }
  return steps;
}
