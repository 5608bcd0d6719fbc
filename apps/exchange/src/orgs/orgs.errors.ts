import { DomainError } from '@careen/contracts';

export enum OrgErrorCode {
  OrgExists = 'ORG_EXISTS',
  OrgNotFound = 'ORG_NOT_FOUND',
}

export const orgExists = (id: string) =>
  new DomainError('conflict', OrgErrorCode.OrgExists, `org "${id}" already exists`);
export const orgNotFound = (id: string) =>
  new DomainError('not-found', OrgErrorCode.OrgNotFound, `org "${id}" not found`);
