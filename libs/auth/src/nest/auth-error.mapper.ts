/** The one place auth errors become HTTP answers. */
import {
  ForbiddenException,
  type HttpException,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { AuthErrorCode, type AuthError } from '../auth.errors';

/** Sent with every 401 so clients learn both accepted schemes. */
export const WWW_AUTHENTICATE = 'Bearer, Basic realm="careen"';

/** An exception whose body is `{statusCode, error, message, details: {code}}`. */
export function authErrorToHttp(error: AuthError): HttpException {
  const details = { code: error.code };
  switch (error.code) {
    case AuthErrorCode.MissingCredentials:
    case AuthErrorCode.MalformedCredentials:
    case AuthErrorCode.InvalidCredentials:
    case AuthErrorCode.TokenExpired:
    case AuthErrorCode.InvalidToken:
      return new UnauthorizedException(
        { statusCode: 401, error: 'Unauthorized', message: error.message, details },
        { cause: error },
      );
    case AuthErrorCode.Forbidden:
    case AuthErrorCode.WrongOrg:
      return new ForbiddenException(
        { statusCode: 403, error: 'Forbidden', message: error.message, details },
        { cause: error },
      );
    case AuthErrorCode.AuthServiceUnavailable:
      return new ServiceUnavailableException(
        { statusCode: 503, error: 'Service Unavailable', message: error.message, details },
        { cause: error },
      );
  }
}
