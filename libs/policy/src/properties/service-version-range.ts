/**
 * The version range of a deployment policy's service, written either as a semver range
 * (`>=1.2.0 <2.0.0`, `^1.2`) or in Open Horizon's interval form (`[1.0.0,INFINITY)`,
 * `(1.0,2.0]`), read as the one semver range both mean. Service versions are semantic versions,
 * so an interval's bounds are padded to three segments; a bound of more segments fits none.
 */
import { validRange } from 'semver';
import { isEmptyInterval, parseVersion } from './version';

const INTERVAL = /^\s*([[(])\s*(\d+(?:\.\d+){0,2})\s*,\s*(\d+(?:\.\d+){0,2}|INFINITY)\s*([\])])\s*$/;
const MAX_LENGTH = 256;

/** The semver range `text` means, or undefined when it is neither a semver range nor an interval. */
export function toSemverRange(text: string): string | undefined {
  if (text.trim().length === 0 || text.length > MAX_LENGTH) return undefined;
  const interval = INTERVAL.exec(text);
  if (!interval) return validRange(text) === null ? undefined : text;
  const [, open, lower, upper, close] = interval as unknown as [string, string, string, string, string];
  const unbounded = upper === 'INFINITY';
  const empty = isEmptyInterval({
    lower: { parts: parseVersion(lower)!, inclusive: open === '[' },
    upper: unbounded ? null : { parts: parseVersion(upper)!, inclusive: close === ']' },
  });
  if (empty) return undefined;
  const from = `${open === '[' ? '>=' : '>'}${semver(lower)}`;
  return unbounded ? from : `${from} ${close === ']' ? '<=' : '<'}${semver(upper)}`;
}

/** `1` and `1.2` as `1.0.0` and `1.2.0`. */
function semver(version: string): string {
  const parts = version.split('.').map(Number);
  while (parts.length < 3) parts.push(0);
  return parts.join('.');
}
