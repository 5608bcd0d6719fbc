/**
 * The planner's persisted state: the empty state, and reading back a stored one. A stored value
 * that does not have the expected shape is read as far as it goes; anything unreadable is
 * dropped, which is safe because the planner re-derives in-flight members from what nodes report.
 */
import {
  type GroupRolloutState,
  type HaltedGroup,
  type InFlightMember,
  type RolloutState,
} from './rollout.types';

export const EMPTY_ROLLOUT_STATE: RolloutState = { groups: {}, ungrouped: {} };

export function readRolloutState(value: unknown): RolloutState {
  if (!isRecord(value)) return EMPTY_ROLLOUT_STATE;
  const groups: Record<string, GroupRolloutState> = {};
  if (isRecord(value.groups)) {
    for (const [name, group] of Object.entries(value.groups)) {
      if (!isRecord(group)) continue;
      const inFlight = readInFlight(group.inFlight);
      const halted = readHalted(group.halted);
      if (inFlight || halted) groups[name] = { inFlight, halted };
    }
  }
  const ungrouped: Record<string, InFlightMember> = {};
  if (isRecord(value.ungrouped)) {
    for (const entry of Object.values(value.ungrouped)) {
      const inFlight = readInFlight(entry);
      if (inFlight) ungrouped[inFlight.node] = inFlight;
    }
  }
  return { groups, ungrouped };
}

function readInFlight(value: unknown): InFlightMember | null {
  if (!isRecord(value)) return null;
  const { node, version, since, overdue } = value;
  if (typeof node !== 'string' || typeof version !== 'string' || !isTime(since)) return null;
  return overdue === true ? { node, version, since, overdue: true } : { node, version, since };
}

function readHalted(value: unknown): HaltedGroup | null {
  if (!isRecord(value)) return null;
  const { node, version, reason, at } = value;
  if (typeof node !== 'string' || typeof version !== 'string' || typeof reason !== 'string' || !isTime(at)) {
    return null;
  }
  return { node, version, reason, at };
}

function isTime(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(new Date(value).getTime());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
