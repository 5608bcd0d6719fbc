/**
 * The statuses an agent reports while enacting a management policy (DESIGN §4 agent):
 * waiting → downloading → downloaded → ha-waiting → initiated → successful, or one of the
 * end states; `reset` is an admin's request to retry.
 */
export const MANAGEMENT_STATUSES = [
  'waiting',
  'downloading',
  'downloaded',
  'ha-waiting',
  'initiated',
  'successful',
  'no-action-required',
  'conflict',
  'download-failed',
  'precheck-failed',
  'failed',
  'rolling-back',
  'rolled-back',
  'rollback-failed',
  'reset',
] as const;
export type ManagementStatusValue = (typeof MANAGEMENT_STATUSES)[number];

/** The outcomes that count towards a policy's failureThreshold: the package was bad or would not install. */
export const FAILED_STATUSES: readonly ManagementStatusValue[] = [
  'precheck-failed',
  'failed',
  'rolled-back',
  'rollback-failed',
];

/** The statuses after which an agent does nothing more for that policy until something changes. */
export const TERMINAL_STATUSES: readonly ManagementStatusValue[] = [
  'successful',
  'no-action-required',
  'conflict',
  'download-failed',
  'precheck-failed',
  'rolled-back',
  'rollback-failed',
];
