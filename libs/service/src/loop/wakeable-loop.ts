/**
 * Background work done in passes: after a pass that moved something, or when woken meanwhile,
 * the next pass starts at once; otherwise after `idleMs`. Ends when the run's signal aborts,
 * leaving no timer or listener behind. A failing pass is reported and the loop goes on.
 */
import { setTimeout as pause } from 'node:timers/promises';

export class WakeableLoop {
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(
    private readonly idleMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs `pass` (answering whether it moved anything) until `signal` aborts. */
  async run(signal: AbortSignal, pass: () => Promise<boolean>): Promise<void> {
    while (!signal.aborted) {
      let moved = false;
      try {
        moved = await pass();
      } catch (error) {
        this.onError(error);
      }
      if (moved || this.woken) {
        this.woken = false;
        continue;
      }
      const waiting = new AbortController();
      const stop = () => waiting.abort();
      signal.addEventListener('abort', stop, { once: true });
      this.wakeUp = stop;
      await pause(this.idleMs, undefined, { signal: waiting.signal }).catch(() => undefined);
      this.wakeUp = undefined;
      signal.removeEventListener('abort', stop);
    }
  }

  /** Something changed: the next pass starts now rather than after the idle wait. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }
}
