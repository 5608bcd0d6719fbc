/**
 * The time, for what a view shows relative to it ("12 s ago", offline after two minutes):
 * one clock for the whole page, ticking every second, so that renders stay pure and "N s ago"
 * counts as the seconds pass without a load.
 */
import { useSyncExternalStore } from 'react';

const TICK_MS = 1000;
let now = Date.now();
const listeners = new Set<() => void>();
let ticker: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  ticker ??= setInterval(() => {
    now = Date.now();
    for (const each of listeners) each();
  }, TICK_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && ticker !== undefined) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };
}

export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}
