/**
 * `atLeastVersion` → the version to reach: a semver as given, or `current`, the newest package;
 * and whether the node is there already.
 */
import semver from 'semver';

export function targetVersion(atLeastVersion: string, published: readonly string[]): string | null {
  if (atLeastVersion === 'current') {
    return published.reduce<string | null>(
      (newest, version) => (newest === null || semver.gt(version, newest) ? version : newest),
      null,
    );
  }
  // An exact version that is not published yet is waited for, not guessed.
  return published.find((version) => semver.eq(version, atLeastVersion)) ?? null;
}

/**
 * Whether the running agent already satisfies the target: at least that version, or exactly it
 * when the policy allows a downgrade (then a higher version is to go down to it).
 */
export function alreadyAt(running: string, target: string, exact = false): boolean {
  if (semver.valid(running) === null) return false;
  return exact ? semver.eq(running, target) : semver.gte(running, target);
}
