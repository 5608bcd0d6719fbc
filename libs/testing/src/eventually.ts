/**
 * Re-checks an assertion until it passes or the deadline ends, for state that another process
 * (a relay, a consumer) reaches on its own time. Rethrows the last failure.
 */
export async function eventually<T>(
  assertion: () => Promise<T> | T,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
    }
  }
}
