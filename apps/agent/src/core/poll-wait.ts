/**
 * How long one poll of the change feed may wait. Each poll is the node's heartbeat; drawing
 * each wait up to a fifth shorter than the setting spreads a fleet that started together, so
 * its polls (and the exchange's answers to them) do not come in waves.
 */
import { type RandomSource } from './clock';

/** How much shorter than the setting a poll's wait may be drawn. */
export const POLL_SPREAD = 0.2;

/** Whole seconds, at least one, at most `pollSeconds`. */
export function pollWait(pollSeconds: number, random: RandomSource): number {
  return Math.max(1, pollSeconds - Math.floor(random() * POLL_SPREAD * pollSeconds));
}
