/**
 * The Fleet view's reading of the exchange's nodes: each node's agent version and condition,
 * the counts the chart draws, and the table's filter. Plain functions of the nodes and the
 * time, so that tests drive them without a browser.
 */

/** The fields of an exchange node the Fleet view reads. */
export interface FleetNode {
  id: string;
  name: string;
  haGroup: string | null;
  schedulable: boolean;
  maintenance: Record<string, unknown> | null;
  status: {
    lastHeartbeat: string;
    agentVersion?: { package?: string; failed?: string | null };
  } | null;
}

/** A node whose last poll (its heartbeat) is older than this is offline, as the agbot counts it. */
export const OFFLINE_AFTER_MS = 120_000;

export type Connectivity = 'online' | 'offline' | 'unreported';
export type Condition = Connectivity | 'maintenance' | 'cordoned';

export interface NodeRow {
  id: string;
  name: string;
  haGroup: string | null;
  /** The agent version it reported; null before its first report. */
  version: string | null;
  /** A version whose install failed on it, if any. */
  failedVersion: string | null;
  connectivity: Connectivity;
  inMaintenance: boolean;
  cordoned: boolean;
  lastSeen: string | null;
}

export function nodeRow(node: FleetNode, now: number): NodeRow {
  const lastSeen = node.status?.lastHeartbeat ?? null;
  const seenAt = lastSeen ? Date.parse(lastSeen) : NaN;
  return {
    id: node.id,
    name: node.name,
    haGroup: node.haGroup,
    version: node.status?.agentVersion?.package ?? null,
    failedVersion: node.status?.agentVersion?.failed ?? null,
    connectivity: Number.isNaN(seenAt)
      ? 'unreported'
      : now - seenAt > OFFLINE_AFTER_MS
        ? 'offline'
        : 'online',
    inMaintenance: node.maintenance !== null,
    cordoned: !node.schedulable,
    lastSeen,
  };
}

/** Whether a row shows under a condition: its connectivity, or being in maintenance or cordoned. */
export function hasCondition(row: NodeRow, condition: Condition): boolean {
  switch (condition) {
    case 'maintenance':
      return row.inMaintenance;
    case 'cordoned':
      return row.cordoned;
    case 'online':
    case 'offline':
    case 'unreported':
      return row.connectivity === condition;
  }
}

export interface FleetSummary {
  total: number;
  /** Nodes by agent version, the newest version first; `null` for nodes that have not reported one. */
  versions: { version: string | null; count: number }[];
  conditions: Record<Condition, number>;
}

export function summarize(rows: NodeRow[]): FleetSummary {
  const byVersion = new Map<string | null, number>();
  const conditions: Record<Condition, number> = {
    online: 0,
    offline: 0,
    unreported: 0,
    maintenance: 0,
    cordoned: 0,
  };
  for (const row of rows) {
    byVersion.set(row.version, (byVersion.get(row.version) ?? 0) + 1);
    for (const condition of Object.keys(conditions) as Condition[])
      if (hasCondition(row, condition)) conditions[condition] += 1;
  }
  const versions = [...byVersion]
    .map(([version, count]) => ({ version, count }))
    .sort((a, b) => compareVersionsNewestFirst(a.version, b.version));
  return { total: rows.length, versions, conditions };
}

export interface FleetFilter {
  /** Part of a node's id, name or HA group. */
  text: string;
  /** A version (`''` for any, `'none'` for nodes without one). */
  version: string;
  condition: Condition | '';
}

export const NO_FILTER: FleetFilter = { text: '', version: '', condition: '' };

export function filterRows(rows: NodeRow[], filter: FleetFilter): NodeRow[] {
  const text = filter.text.trim().toLowerCase();
  return rows.filter(
    (row) =>
      (!text || [row.id, row.name, row.haGroup ?? ''].some((value) => value.toLowerCase().includes(text))) &&
      (!filter.version ||
        (filter.version === 'none' ? row.version === null : row.version === filter.version)) &&
      (!filter.condition || hasCondition(row, filter.condition)),
  );
}

/** Semantic versions compared part by part (numbers as numbers); no version last. */
function compareVersionsNewestFirst(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return -a.localeCompare(b, undefined, { numeric: true });
}
