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

/**
 * The credentials a request carries: its Authorization header, or else the token Keystone-era
 * clients (Fenix's VNF managers) send as `X-Auth-Token`, read as a bearer credential. Both at
 * once is refused: which one was meant cannot be told.
 */
export function requestCredentials(
  headers: Record<string, string | string[] | undefined>,
): string | string[] | undefined {
  const token = headers['x-auth-token'];
  if (token === undefined) return headers.authorization;
  if (headers.authorization !== undefined)
    throw new AuthenticationError(
      AuthErrorCode.MalformedCredentials,
      'send either an Authorization header or X-Auth-Token, not both',
    );
  if (Array.isArray(token))
    throw new AuthenticationError(AuthErrorCode.MalformedCredentials, 'send one X-Auth-Token header');
  return `Bearer ${token}`;
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
