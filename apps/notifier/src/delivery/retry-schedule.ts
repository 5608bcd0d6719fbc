/**
 * When a failed delivery is tried again: the base delay doubled per attempt, capped, with
 * "full jitter" (a random share of it) so that many deliveries failing together do not all come
 * back at once; none after the delivery's deadline.
 */
export interface RetrySettings {
  baseMs: number;
  maxMs: number;
}

/** The time of the next attempt after `attempts` failed ones, or undefined when it would be past the deadline. */
export function nextAttempt(
  attempts: number,
  now: Date,
  deadline: Date,
  settings: RetrySettings,
  random: () => number = Math.random,
): Date | undefined {
  const ceiling = Math.min(settings.maxMs, settings.baseMs * 2 ** Math.min(attempts - 1, 30));
  const delay = settings.baseMs / 2 + random() * (ceiling - settings.baseMs / 2);
  const at = new Date(now.getTime() + Math.max(0, delay));
  return at.getTime() <= deadline.getTime() ? at : undefined;
}
