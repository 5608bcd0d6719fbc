/** Waits `ms`, or less when `signal` aborts (Ctrl-C while watching). */
export function interruptiblePause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
