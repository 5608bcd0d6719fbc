/**
 * Where a rollout's time went, from the agbot's grant history: how long each member held its
 * group's slot, and how long a group's slot stayed free between one member's release and the
 * next member's grant (the hand-off; it includes waiting for a member whose moment in the
 * window had not come yet). Agent-upgrade slots only.
 */
import { type TimelineEvent } from '@careen/agbot/src/upgrades/upgrade-timeline';

export interface SlotSpans {
  /** Granted to released, per slot, in ms. */
  heldMs: number[];
  /** A group's release to its next grant, in ms. */
  handOffMs: number[];
}

export function slotSpans(events: readonly TimelineEvent[]): SlotSpans {
  const spans: SlotSpans = { heldMs: [], handOffMs: [] };
  const grantedAt = new Map<string, number>();
  const releasedAt = new Map<string, number>();
  for (const event of events) {
    if (event.kind !== 'agent-upgrade' || event.haGroup === null || event.event === 'halted') continue;
    const at = event.at.getTime();
    const group = `${event.org}/${event.haGroup}`;
    const slot = `${event.org}/${event.node}`;
    if (event.event === 'granted') {
      const free = releasedAt.get(group);
      if (free !== undefined) spans.handOffMs.push(at - free);
      releasedAt.delete(group);
      grantedAt.set(slot, at);
    } else {
      const granted = grantedAt.get(slot);
      if (granted !== undefined) spans.heldMs.push(at - granted);
      grantedAt.delete(slot);
      releasedAt.set(group, at);
    }
  }
  return spans;
}
