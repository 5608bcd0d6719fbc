/**
 * Whether a node may receive workloads now, and the facts placement reads from it. Owns the
 * reading of the node's `schedulable` flag, its `maintenance` record and its arch; it never
 * looks at policies.
 */
import { CAREEN_ARCH } from '@careen/policy';
import { type PlacementNode } from './placement.types';

/** Maintenance states that mean the window is over (Doctor's and plain words). */
const FINISHED_MAINTENANCE_STATES = new Set([
  'complete',
  'completed',
  'maintenance_complete',
  'done',
  'finished',
  'aborted',
  'cancelled',
  'canceled',
]);
const END_FIELDS = ['until', 'endsAt', 'end', 'endTime'] as const;
const START_FIELDS = ['from', 'startsAt', 'start', 'startTime'] as const;

/**
 * A node is under maintenance when its `maintenance` record is non-null and active: not marked
 * `active: false`, not in a finished `state`, and, when it names a window, `now` is inside it.
 * The exchange leaves the record's shape free, so unknown shapes count as active: the safe side.
 */
export function isUnderMaintenance(maintenance: PlacementNode['maintenance'], now: Date): boolean {
  if (maintenance === null || maintenance === undefined) return false;
  if (maintenance.active === false) return false;
  const state = maintenance.state;
  if (typeof state === 'string' && FINISHED_MAINTENANCE_STATES.has(state.toLowerCase())) return false;
  const end = firstTime(maintenance, END_FIELDS);
  if (end !== undefined && end <= now.getTime()) return false;
  const start = firstTime(maintenance, START_FIELDS);
  if (start !== undefined && start > now.getTime()) return false;
  return true;
}

/** Whether placement may put workloads on the node: not cordoned and not under maintenance. */
export function acceptsWorkloads(node: PlacementNode, now: Date): boolean {
  return node.schedulable !== false && !isUnderMaintenance(node.maintenance, now);
}

/** Why a node takes no workloads, or undefined when it does. */
export function unavailabilityReason(node: PlacementNode, now: Date): string | undefined {
  if (node.schedulable === false) return 'node is cordoned (schedulable=false)';
  if (isUnderMaintenance(node.maintenance, now)) return 'node is under maintenance';
  return undefined;
}

/** The node's `careen.arch` property, when it states one. */
export function nodeArch(node: Pick<PlacementNode, 'policy'>): string | undefined {
  const property = node.policy?.properties?.find((candidate) => candidate.name === CAREEN_ARCH);
  return typeof property?.value === 'string' ? property.value : undefined;
}

/** The failure domain replicas are spread over: the rack, or the node itself when it has none. */
export function failureDomain(node: Pick<PlacementNode, 'org' | 'id' | 'rack'>): string {
  return node.rack ? `rack:${node.rack}` : `node:${node.id}`;
}

function firstTime(record: Record<string, unknown>, fields: readonly string[]): number | undefined {
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'string' || typeof value === 'number') {
      const time = new Date(value).getTime();
      if (!Number.isNaN(time)) return time;
    }
  }
  return undefined;
}
