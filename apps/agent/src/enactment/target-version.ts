/** `atLeastVersion` → the version to reach: a semver as given, or `current`, the newest package. */
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

/** Whether the running agent already satisfies the target (at least that version). */
export function alreadyAt(running: string, target: string): boolean {
  return semver.valid(running) !== null && semver.gte(running, target);
}
