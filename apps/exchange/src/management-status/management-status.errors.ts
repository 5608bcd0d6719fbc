import { DomainError } from '@careen/contracts';

export enum ManagementStatusErrorCode {
  NotFound = 'MANAGEMENT_STATUS_NOT_FOUND',
  NotYourStatus = 'MANAGEMENT_STATUS_NOT_YOURS',
}

export const managementStatusNotFound = (org: string, node: string, nmp: string) =>
  new DomainError(
    'not-found',
    ManagementStatusErrorCode.NotFound,
    `node "${org}/${node}" has no status for management policy "${nmp}"`,
  );

export const notYourStatus = (message: string) =>
  new DomainError('forbidden', ManagementStatusErrorCode.NotYourStatus, message);
