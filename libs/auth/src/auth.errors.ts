/**
 * Authentication and authorization failures. They are domain errors, so any transport's error
 * mapper turns them into 401/403/503 by kind; the guard's own mapping lives in
 * nest/auth-error.mapper.ts. No Nest types here.
 */
import { DomainError } from '@careen/contracts';

export enum AuthErrorCode {
  MissingCredentials = 'MISSING_CREDENTIALS',
  MalformedCredentials = 'MALFORMED_CREDENTIALS',
  InvalidCredentials = 'INVALID_CREDENTIALS',
  TokenExpired = 'TOKEN_EXPIRED',
  InvalidToken = 'INVALID_TOKEN',
  Forbidden = 'FORBIDDEN',
  WrongOrg = 'WRONG_ORG',
  AuthServiceUnavailable = 'AUTH_SERVICE_UNAVAILABLE',
}

export type AuthenticationErrorCode =
  | AuthErrorCode.MissingCredentials
  | AuthErrorCode.MalformedCredentials
  | AuthErrorCode.InvalidCredentials
  | AuthErrorCode.TokenExpired
  | AuthErrorCode.InvalidToken;

export type AuthorizationErrorCode = AuthErrorCode.Forbidden | AuthErrorCode.WrongOrg;

/** The caller could not be identified (HTTP 401). */
export class AuthenticationError extends DomainError {
  declare readonly code: AuthenticationErrorCode;

  constructor(code: AuthenticationErrorCode, message: string) {
    super('unauthenticated', code, message);
  }
}

/** The caller is known but may not do this (HTTP 403). */
export class AuthorizationError extends DomainError {
  declare readonly code: AuthorizationErrorCode;

  constructor(code: AuthorizationErrorCode, message: string) {
    super('forbidden', code, message);
  }
}

/**
 * Credentials could not be checked because the exchange (or its key set) did not answer
 * (HTTP 503). Kept apart from AuthenticationError so an outage never reads as "wrong password".
 */
export class AuthServiceUnavailableError extends DomainError {
  declare readonly code: AuthErrorCode.AuthServiceUnavailable;

  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', AuthErrorCode.AuthServiceUnavailable, message);
    if (options && 'cause' in options) this.cause = options.cause;
  }
}

export type AuthError = AuthenticationError | AuthorizationError | AuthServiceUnavailableError;

export function isAuthError(error: unknown): error is AuthError {
  return (
    error instanceof AuthenticationError ||
    error instanceof AuthorizationError ||
    error instanceof AuthServiceUnavailableError
  );
}
