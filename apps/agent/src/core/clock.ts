/** Time and chance, injected so the agent's rules can be tested without waiting or guessing. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or at once (without throwing) when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A number in [0, 1), like Math.random. */
export type RandomSource = () => number;

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};
