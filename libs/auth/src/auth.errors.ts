/**
 * Authentication and authorization failures, free of any transport. Each carries a stable code;
 * the HTTP mapping lives in nest/auth-error.mapper.ts and nowhere else.
 */
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
export class AuthenticationError extends Error {
  constructor(
    readonly code: AuthenticationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The caller is known but may not do this (HTTP 403). */
export class AuthorizationError extends Error {
  constructor(
    readonly code: AuthorizationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Credentials could not be checked because the exchange (or its key set) did not answer
 * (HTTP 503). Kept apart from AuthenticationError so an outage never reads as "wrong password".
 */
export class AuthServiceUnavailableError extends Error {
  readonly code = AuthErrorCode.AuthServiceUnavailable;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
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
