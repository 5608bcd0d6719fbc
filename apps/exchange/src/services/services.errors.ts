import { DomainError } from '@careen/contracts';

export enum ServiceErrorCode {
  ServiceNotFound = 'SERVICE_NOT_FOUND',
  ServiceVersionExists = 'SERVICE_VERSION_EXISTS',
}

export const serviceNotFound = (org: string, id: string) =>
  new DomainError('not-found', ServiceErrorCode.ServiceNotFound, `service "${org}/${id}" not found`);
export const serviceVersionExists = (org: string, url: string, version: string, arch: string) =>
  new DomainError(
    'conflict',
    ServiceErrorCode.ServiceVersionExists,
    `org "${org}" already has another service for ${url} ${version} on ${arch}`,
  );
