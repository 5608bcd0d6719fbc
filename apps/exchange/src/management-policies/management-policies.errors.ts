import { DomainError, type ManagementPolicyState } from '@careen/contracts';

export enum ManagementPolicyErrorCode {
  NotFound = 'NMP_NOT_FOUND',
  DisruptiveNeedsConfirmation = 'NMP_DISRUPTIVE_NEEDS_CONFIRMATION',
  Disabled = 'MANAGEMENT_POLICY_DISABLED',
  Stopped = 'MANAGEMENT_POLICY_STOPPED',
  ResetChoice = 'MANAGEMENT_POLICY_RESET_CHOICE',
  NoPackage = 'NMP_NO_PACKAGE',
}

export const managementPolicyNotFound = (org: string, name: string) =>
  new DomainError(
    'not-found',
    ManagementPolicyErrorCode.NotFound,
    `management policy "${org}/${name}" not found`,
  );

export const disruptiveNeedsConfirmation = (why: string) =>
  new DomainError(
    'invalid',
    ManagementPolicyErrorCode.DisruptiveNeedsConfirmation,
    `this enabled policy ${why}, so it may upgrade every node at about the same time; ` +
      'publish it again with "allowDisruptive": true to confirm',
  );

export const managementPolicyDisabled = (org: string, name: string) =>
  new DomainError(
    'conflict',
    ManagementPolicyErrorCode.Disabled,
    `management policy "${org}/${name}" is disabled: there is no rollout to pause; resume re-enables it`,
    { org, name },
  );

/** A node may not start a new step (download, install) of a policy that is disabled or paused. */
export const managementPolicyStopped = (org: string, name: string, state: ManagementPolicyState) =>
  new DomainError(
    'conflict',
    ManagementPolicyErrorCode.Stopped,
    `management policy "${org}/${name}" is ${state}: no node starts a new step of it until it is resumed`,
    { org, name, state },
  );

export const resetNeedsOneChoice = () =>
  new DomainError(
    'invalid',
    ManagementPolicyErrorCode.ResetChoice,
    'give either "nodes" or "failed": true, not both (neither resets every node of the policy)',
  );

/** An enabled policy whose upgrade no node could enact: its nodes would wait without a word. */
export const upgradePackageMissing = (why: string, version: string, archs: readonly string[]) =>
  new DomainError(
    'invalid',
    ManagementPolicyErrorCode.NoPackage,
    `agentUpgradePolicy.atLeastVersion: ${why}; publish the package first (careen agentpackage publish), ` +
      'or publish the policy disabled until it is',
    { code: ManagementPolicyErrorCode.NoPackage, version, archs: [...archs] },
  );
