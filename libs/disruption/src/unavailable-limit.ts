/**
 * How many nodes a budget lets be down at once: a count (`3`) or a percentage of the nodes it
 * covers (`"10%"`), as a PodDisruptionBudget's `maxUnavailable`. A percentage rounds up and
 * never comes to less than one node, so a budget slows disruption down but never stops it.
 */
export type UnavailableLimit = number | `${number}%`;

const PERCENT = /^(100|[1-9][0-9]?)%$/;

/** Why `value` is no limit, or undefined when it is one. */
export function limitProblem(value: unknown): string | undefined {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 1 && value <= 100_000
      ? undefined
      : 'must be a whole number from 1 to 100000';
  }
  if (typeof value === 'string') {
    return PERCENT.test(value) ? undefined : 'must be a percentage from 1% to 100%';
  }
  return 'must be a count (a whole number ≥ 1) or a percentage such as 10%';
}

/** The number of nodes `limit` lets be down out of `covered`. */
export function allowedDown(limit: UnavailableLimit, covered: number): number {
  if (typeof limit === 'number') return limit;
  const percent = Number(limit.slice(0, -1));
  return Math.max(1, Math.ceil((covered * percent) / 100));
}

/** Whether the limit depends on how many nodes it covers. */
export function isPercent(limit: UnavailableLimit): limit is `${number}%` {
  return typeof limit === 'string';
}
