/**
 * A single-node upgrade's state in its history (seed 004), read from the management status the
 * node's agent reports for the upgrade's policy.
 */
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
  successful: 'success',
  'no-action-required': 'success',
  'rolled-back': 'rolled-back',
  conflict: 'failed',
  'download-failed': 'failed',
  'precheck-failed': 'failed',
  'rollback-failed': 'failed',
};

export function upgradeStateOf(status: string): UpgradeState {
  return BY_STATUS[status] ?? 'pending';
}
