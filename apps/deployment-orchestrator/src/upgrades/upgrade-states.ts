/**
 * A single-node upgrade's state in its history, read from the management status the node's
 * agent reports for the upgrade's policy and, once the agent says it is done, from the version
 * the node itself reports running.
 */
import semver from 'semver';

export const UPGRADE_STATES = [
  'pending',
  'downloading',
  'installing',
  'success',
  'failed',
  'rolled-back',
] as const;
export type UpgradeState = (typeof UPGRADE_STATES)[number];
export const FINISHED_UPGRADE_STATES: readonly UpgradeState[] = ['success', 'failed', 'rolled-back'];

/** The names of single-node upgrades' management policies start so. */
export const UPGRADE_POLICY_PREFIX = 'upgrade-';

/** The install strategies agents know; `tarball` unpacks the verified package beside the running one. */
export const INSTALL_STRATEGIES = ['tarball'] as const;

const BY_STATUS: Record<string, UpgradeState> = {
  waiting: 'pending',
  paused: 'pending',
  reset: 'pending',
  downloading: 'downloading',
  downloaded: 'downloading',
  'ha-waiting': 'installing',
  initiated: 'installing',
  failed: 'installing',
  'rolling-back': 'installing',
  // Done, by the agent's word: whether that is the asked version is the node's report to tell.
  successful: 'installing',
  'no-action-required': 'installing',
  // Done, while an alert gate's soak of the step lasts; an alert during it failed the step.
  soaking: 'installing',
  'soak-failed': 'failed',
  'rolled-back': 'rolled-back',
  conflict: 'failed',
  'download-failed': 'failed',
  'precheck-failed': 'failed',
  'rollback-failed': 'failed',
};

export function upgradeStateOf(status: string): UpgradeState {
  return BY_STATUS[status] ?? 'pending';
}

export interface UpgradeOutcome {
  state: UpgradeState;
  error: string | null;
}

/**
 * What a status means for an upgrade to `asked` on a node now running `running`. An agent that
 * says it is done counts as a success only once the node reports the asked version: an agent
 * finds nothing to do (`no-action-required`) on a node at or above the version it is sent unless
 * its policy allows a downgrade, so on a node above it the upgrade failed, and the node's own
 * report may lag a `successful` for a moment, which is waited for.
 */
export function upgradeOutcome(
  status: string,
  asked: string,
  running: string | null,
  allowDowngrade = false,
): UpgradeOutcome {
  const state = upgradeStateOf(status);
  if (status !== 'successful' && status !== 'no-action-required') return { state, error: null };
  if (running !== null && sameVersion(running, asked)) return { state: 'success', error: null };
  if (status === 'successful' || running === null) return { state, error: null };
  const why = !isDowngrade(running, asked)
    ? 'though the node runs another version'
    : allowDowngrade
      ? 'though a downgrade was allowed: its agent does not go below the version it runs (it predates allowDowngrade)'
      : 'as agents go below the version they run only when a downgrade is allowed';
  return {
    state: 'failed',
    error: `the node stayed at ${running}: its agent answered ${status} for ${asked}, ${why}`,
  };
}

function sameVersion(a: string, b: string): boolean {
  return semver.valid(a) && semver.valid(b) ? semver.eq(a, b) : a === b;
}

/**
 * Whether `asked` is below the version the node runs (unknown versions are not judged): a
 * downgrade when asked, a rollback in the history.
 */
export function isDowngrade(running: string | null, asked: string): boolean {
  return (
    running !== null &&
    semver.valid(running) !== null &&
    semver.valid(asked) !== null &&
    semver.lt(asked, running)
  );
}
