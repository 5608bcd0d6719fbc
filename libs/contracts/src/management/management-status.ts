/**
 * The statuses an agent reports while enacting a management policy (docs/domain.md, Node
 * management policies and agent upgrades):
 * waiting → downloading → downloaded → ha-waiting → initiated → successful, or one of the
 * end states; `paused` while the policy's rollout is paused before the node started; `reset`
 * is an admin's request to retry.
 */
export const MANAGEMENT_STATUSES = [
  'waiting',
  'paused',
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

/**
 * A node that reported one of these is not serving as it should: its install failed and it has
 * not rolled back (yet, or at all). It halts its HA group until it reports healthy again or an
 * admin resets it, so that one bad package never takes a second member down.
 */
export const UNHEALTHY_STATUSES: readonly ManagementStatusValue[] = [
  'failed',
  'rolling-back',
  'rollback-failed',
];

/** The statuses with which a node starts a new step of a policy: refused once the policy is stopped. */
export const STEP_START_STATUSES: readonly ManagementStatusValue[] = ['downloading', 'initiated'];

/** Where a policy's rollout stands: `enabled` false is disabled, else `paused` pauses it. */
export const MANAGEMENT_POLICY_STATES = ['active', 'paused', 'disabled'] as const;
export type ManagementPolicyState = (typeof MANAGEMENT_POLICY_STATES)[number];

export function managementPolicyState(policy: { enabled: boolean; paused?: boolean }): ManagementPolicyState {
  if (!policy.enabled) return 'disabled';
  return policy.paused ? 'paused' : 'active';
}

/** What happened to a policy, as its history and its change events name it. */
export const MANAGEMENT_POLICY_EVENTS = [
  'published',
  'enabled',
  'disabled',
  'paused',
  'resumed',
  'reset',
  'removed',
] as const;
export type ManagementPolicyEvent = (typeof MANAGEMENT_POLICY_EVENTS)[number];
