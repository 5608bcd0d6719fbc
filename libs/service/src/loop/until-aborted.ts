/**
 * Resolves once `signal` aborts, at once when it already has. A bare `abort` listener waits
 * forever on a signal that aborted before it was added: the event is dispatched only once.
 */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
