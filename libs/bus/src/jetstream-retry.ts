/**
 * Retries a JetStream API call that failed only because the cluster could not answer yet: a
 * stream or consumer just created elsewhere whose leader is still being elected, a server
 * restarting. Every other failure is thrown at once.
 */
const TRANSIENT = /timeout|no responders|jetstream (is )?not (enabled|available)|temporarily unavailable/i;

export function isTransientJetStreamError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, message } = error as { name?: unknown; message?: unknown };
  return name === 'TimeoutError' || (typeof message === 'string' && TRANSIENT.test(message));
}

export async function retryTransient<T>(
  call: () => Promise<T>,
  options: { attempts?: number; pauseMs?: number } = {},
): Promise<T> {
  const attempts = options.attempts ?? 6;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts || !isTransientJetStreamError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, (options.pauseMs ?? 500) * attempt));
    }
  }
}
