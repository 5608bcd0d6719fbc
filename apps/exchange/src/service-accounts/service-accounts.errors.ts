import { DomainError } from '@careen/contracts';

export enum ServiceAccountErrorCode {
  Exists = 'SERVICE_ACCOUNT_EXISTS',
  NotFound = 'SERVICE_ACCOUNT_NOT_FOUND',
  KeyNotFound = 'API_KEY_NOT_FOUND',
  KeyEnded = 'API_KEY_ENDED',
}

export const serviceAccountExists = (org: string, name: string) =>
  new DomainError(
    'conflict',
    ServiceAccountErrorCode.Exists,
    `service account "${org}/${name}" already exists`,
    {
      org,
      name,
    },
  );
export const serviceAccountNotFound = (org: string, name: string) =>
  new DomainError(
    'not-found',
    ServiceAccountErrorCode.NotFound,
    `service account "${org}/${name}" not found`,
    {
      org,
      name,
    },
  );
export const apiKeyNotFound = (org: string, account: string, id: string) =>
  new DomainError(
    'not-found',
    ServiceAccountErrorCode.KeyNotFound,
    `service account "${org}/${account}" has no key ${id}`,
    {
      org,
      account,
      key: id,
    },
  );
export const apiKeyEnded = (id: string, state: string) =>
  new DomainError(
    'conflict',
    ServiceAccountErrorCode.KeyEnded,
    `key ${id} is ${state}: make a new key instead`,
    {
      key: id,
      state,
    },
  );
