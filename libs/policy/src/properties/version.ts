/**
 * Versions as Open Horizon writes them: dotted numerics (`1`, `1.2`, `1.2.3`), compared
 * numerically segment by segment, a missing segment counting as 0 (`1.2` equals `1.2.0`).
 * Owns parsing, ordering and range containment; it knows nothing of properties or constraints.
 */
import { type VersionParts } from './property.types';

const VERSION_PATTERN = /^\d+(\.\d+)*$/;

export function isVersion(text: string): boolean {
  return VERSION_PATTERN.test(text);
}

/** The numeric segments of a version, trailing zeros dropped; undefined when not a version. */
export function parseVersion(text: string): VersionParts | undefined {
  if (!VERSION_PATTERN.test(text)) return undefined;
  const parts = text.split('.').map(Number);
  let length = parts.length;
  while (length > 0 && parts[length - 1] === 0) length--;
  return parts.slice(0, length);
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersionParts(a: VersionParts, b: VersionParts): number {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference < 0 ? -1 : 1;
  }
  return 0;
}

/** Compares two version strings; throws on a string that is not a version. */
export function compareVersions(a: string, b: string): number {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (left === undefined) throw new RangeError(`"${a}" is not a version`);
  if (right === undefined) throw new RangeError(`"${b}" is not a version`);
  return compareVersionParts(left, right);
}

export interface VersionBound {
  readonly parts: VersionParts;
  readonly inclusive: boolean;
}

/** A range with a lower bound and an upper bound, or none (INFINITY). */
export interface VersionInterval {
  readonly lower: VersionBound;
  readonly upper: VersionBound | null;
}

export function versionInInterval(version: VersionParts, interval: VersionInterval): boolean {
  const fromLower = compareVersionParts(version, interval.lower.parts);
  if (fromLower < 0 || (fromLower === 0 && !interval.lower.inclusive)) return false;
  if (interval.upper === null) return true;
  const fromUpper = compareVersionParts(version, interval.upper.parts);
  return fromUpper < 0 || (fromUpper === 0 && interval.upper.inclusive);
}

/** True when no version can lie in the interval, e.g. `[2.0,1.0)` or `(1.0,1.0]`. */
export function isEmptyInterval(interval: VersionInterval): boolean {
  if (interval.upper === null) return false;
  const order = compareVersionParts(interval.lower.parts, interval.upper.parts);
  if (order > 0) return true;
  return order === 0 && !(interval.lower.inclusive && interval.upper.inclusive);
}
