import { DomainError } from '@careen/contracts';

export enum ManagementPolicyErrorCode {
  NotFound = 'NMP_NOT_FOUND',
  DisruptiveNeedsConfirmation = 'NMP_DISRUPTIVE_NEEDS_CONFIRMATION',
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
    { code: ManagementPolicyErrorCode.DisruptiveNeedsConfirmation },
  );
