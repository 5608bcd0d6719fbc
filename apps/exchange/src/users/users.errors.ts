import { DomainError } from '@careen/contracts';

export enum UserErrorCode {
  UserExists = 'USER_EXISTS',
  UserNotFound = 'USER_NOT_FOUND',
  RoleNotAllowed = 'ROLE_NOT_ALLOWED',
  ProtectedUser = 'PROTECTED_USER',
  NotYourRecord = 'USER_NOT_YOURS',
}

export const userExists = (org: string, username: string) =>
  new DomainError('conflict', UserErrorCode.UserExists, `user "${org}/${username}" already exists`);
export const userNotFound = (org: string, username: string) =>
  new DomainError('not-found', UserErrorCode.UserNotFound, `user "${org}/${username}" not found`);
export const roleNotAllowed = (message: string) =>
  new DomainError('forbidden', UserErrorCode.RoleNotAllowed, message);
export const protectedUser = (message: string) =>
  new DomainError('conflict', UserErrorCode.ProtectedUser, message);
export const notYourRecord = () =>
  new DomainError('forbidden', UserErrorCode.NotYourRecord, 'users may read only their own record');
