import { DomainError } from '@careen/contracts';
import {
  AuthenticationError,
  AuthErrorCode,
  AuthorizationError,
  AuthServiceUnavailableError,
  isAuthError,
} from './auth.errors';

describe('auth errors', () => {
  it('are domain errors whose kind any transport maps to 401, 403 or 503', () => {
    const unauthenticated = new AuthenticationError(AuthErrorCode.TokenExpired, 'token expired');
    const forbidden = new AuthorizationError(AuthErrorCode.WrongOrg, 'no access to org globex');
    const cause = new Error('connect ECONNREFUSED');
    const unavailable = new AuthServiceUnavailableError('the exchange could not be reached', { cause });
    expect([unauthenticated, forbidden, unavailable].every((error) => error instanceof DomainError)).toBe(
      true,
    );
    expect(unauthenticated).toMatchObject({
      kind: 'unauthenticated',
      code: 'TOKEN_EXPIRED',
      name: 'AuthenticationError',
    });
    expect(forbidden).toMatchObject({ kind: 'forbidden', code: 'WRONG_ORG', name: 'AuthorizationError' });
    expect(unavailable).toMatchObject({ kind: 'unavailable', code: 'AUTH_SERVICE_UNAVAILABLE', cause });
  });

  it('tells auth errors from other errors', () => {
    expect(isAuthError(new AuthenticationError(AuthErrorCode.InvalidToken, 'invalid token'))).toBe(true);
    expect(isAuthError(new DomainError('forbidden', 'OTHER', 'other'))).toBe(false);
    expect(isAuthError(new Error('boom'))).toBe(false);
  });
});
