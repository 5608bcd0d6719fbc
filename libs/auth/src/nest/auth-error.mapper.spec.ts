import {
  AuthenticationError,
  AuthErrorCode,
  AuthorizationError,
  AuthServiceUnavailableError,
  type AuthError,
} from '../auth.errors';
import { authErrorToHttp } from './auth-error.mapper';

function errorFor(code: AuthErrorCode): AuthError {
  switch (code) {
    case AuthErrorCode.MissingCredentials:
    case AuthErrorCode.MalformedCredentials:
    case AuthErrorCode.InvalidCredentials:
    case AuthErrorCode.TokenExpired:
    case AuthErrorCode.InvalidToken:
      return new AuthenticationError(code, `because ${code}`);
    case AuthErrorCode.Forbidden:
    case AuthErrorCode.WrongOrg:
      return new AuthorizationError(code, `because ${code}`);
    case AuthErrorCode.AuthServiceUnavailable:
      return new AuthServiceUnavailableError(`because ${code}`);
  }
}

const expected: Record<AuthErrorCode, [number, string]> = {
  [AuthErrorCode.MissingCredentials]: [401, 'Unauthorized'],
  [AuthErrorCode.MalformedCredentials]: [401, 'Unauthorized'],
  [AuthErrorCode.InvalidCredentials]: [401, 'Unauthorized'],
  [AuthErrorCode.TokenExpired]: [401, 'Unauthorized'],
  [AuthErrorCode.InvalidToken]: [401, 'Unauthorized'],
  [AuthErrorCode.Forbidden]: [403, 'Forbidden'],
  [AuthErrorCode.WrongOrg]: [403, 'Forbidden'],
  [AuthErrorCode.AuthServiceUnavailable]: [503, 'Service Unavailable'],
};

describe('authErrorToHttp', () => {
  it.each(Object.values(AuthErrorCode))(
    'maps %s to its status with a {statusCode, error, message, details: {code}} body',
    (code) => {
      const [statusCode, error] = expected[code];
      const exception = authErrorToHttp(errorFor(code));
      expect(exception.getStatus()).toBe(statusCode);
      expect(exception.getResponse()).toEqual({
        statusCode,
        error,
        message: `because ${code}`,
        details: { code },
      });
    },
  );
});
