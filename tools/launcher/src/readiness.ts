/** Polls a service's /readyz until it answers 200. */
const POLL_INTERVAL_MS = 100;
const REQUEST_TIMEOUT_MS = 2_000;

export type ReadinessOutcome = 'ready' | 'exited' | 'timeout' | 'aborted';

export interface ReadinessOptions {
  timeoutMs: number;
  isRunning: () => boolean;
  signal: AbortSignal;
}

export async function waitUntilReady(baseUrl: string, options: ReadinessOptions): Promise<ReadinessOutcome> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (options.signal.aborted) return 'aborted';
    if (!options.isRunning()) return 'exited';
    if (await answersReady(baseUrl)) return 'ready';
    if (Date.now() > deadline) return 'timeout';
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function answersReady(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}
