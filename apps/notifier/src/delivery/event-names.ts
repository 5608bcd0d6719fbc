/**
 * A project event as a subscription that chose Fenix's names reads it: `DOWN_SCALE` is Fenix's
 * `SCALE_IN`; a host's states carry the instances they are about as a list in `instance_ids`
 * (Fenix's VNF managers read its first), not the URL; a reply's deadline is also `reply_at`.
 * Admin events and the guideline's names pass as they are.
 */
import { type EventNames } from '../subscriptions/subscription';

const FENIX_STATE_NAMES: Record<string, string> = { DOWN_SCALE: 'SCALE_IN' };

export function namedFor(names: EventNames, payload: Record<string, unknown>): Record<string, unknown> {
  if (names === 'guideline') return payload;
  const state = typeof payload.state === 'string' ? payload.state : undefined;
  return {
    ...payload,
    ...(state && FENIX_STATE_NAMES[state] ? { state: FENIX_STATE_NAMES[state] } : {}),
    ...(payload.host !== undefined && Array.isArray(payload.instances)
      ? { instance_ids: payload.instances }
      : {}),
    ...(payload.reply_url !== undefined && payload.actions_at !== undefined
      ? { reply_at: payload.actions_at }
      : {}),
  };
}

/** A state a subscriber names in Fenix's words, in the guideline's. */
export function guidelineState(state: string): string {
  return Object.entries(FENIX_STATE_NAMES).find(([, fenix]) => fenix === state)?.[0] ?? state;
}
