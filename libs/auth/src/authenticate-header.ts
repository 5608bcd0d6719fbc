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

/** How the caller proved who it is, for the audit trail. */
export type CredentialKind = 'token' | 'key' | 'password' | 'node-token';

export interface Authenticated {
  principal: Principal;
  via: CredentialKind;
}

/** Throws AuthenticationError for missing or wrong credentials, AuthServiceUnavailableError when they cannot be checked. */
export async function authenticateHeader(
  header: string | string[] | undefined,
  checkers: CredentialCheckers,
): Promise<Authenticated> {
  if (Array.isArray(header))
    throw new AuthenticationError(AuthErrorCode.MalformedCredentials, 'send one authorization header');
  const credentials = parseAuthorizationHeader(header);
  if (!credentials) throw new AuthenticationError(AuthErrorCode.MissingCredentials, 'missing credentials');
  switch (credentials.scheme) {
    case 'bearer':
      return isApiKey(credentials.token)
        ? { principal: await checkers.keys.authenticate(credentials.token), via: 'key' }
        : { principal: await checkers.verifier.verify(credentials.token), via: 'token' };
    case 'basic': {
      const principal = await checkers.basic.authenticate(
        credentials.org,
        credentials.id,
        credentials.secret,
      );
      return { principal, via: principal.kind === 'node' ? 'node-token' : 'password' };
    }
  }
}
