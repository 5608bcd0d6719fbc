/**
 * The caller an Authorization header names, one way for every route that reads one: a bearer
 * access token (verified locally), a bearer service-account key (checked at the exchange), or
 * Basic `org/id:secret` (a user's password or a node's token).
 */
import { isApiKey, type KeyAuthenticator } from './api-key';
import { AuthenticationError, AuthErrorCode } from './auth.errors';
import { parseAuthorizationHeader } from './authorization-header';
import { type BasicAuthenticator } from './basic-authenticator';
import { type Principal } from './principal';
import { type TokenVerifier } from './token-verifier';

export interface CredentialCheckers {
  verifier: TokenVerifier;
  basic: BasicAuthenticator;
  keys: KeyAuthenticator;
}

/** Throws AuthenticationError for missing or wrong credentials, AuthServiceUnavailableError when they cannot be checked. */
export async function authenticateHeader(
  header: string | string[] | undefined,
  checkers: CredentialCheckers,
): Promise<Principal> {
  if (Array.isArray(header))
    throw new AuthenticationError(AuthErrorCode.MalformedCredentials, 'send one authorization header');
  const credentials = parseAuthorizationHeader(header);
  if (!credentials) throw new AuthenticationError(AuthErrorCode.MissingCredentials, 'missing credentials');
  switch (credentials.scheme) {
    case 'bearer':
      return isApiKey(credentials.token)
        ? checkers.keys.authenticate(credentials.token)
        : checkers.verifier.verify(credentials.token);
    case 'basic':
      return checkers.basic.authenticate(credentials.org, credentials.id, credentials.secret);
  }
}
