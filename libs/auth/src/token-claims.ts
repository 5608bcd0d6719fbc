/**
 * The shape of Careen access-token claims, written by the issuer and read back by every
 * verifier. Changing a claim here changes both sides at once.
 */
import { type JWTPayload } from 'jose';
import { roleNamed, type Principal, type Role } from './principal';

/** RFC 9068 media type: keeps an access token from being accepted where another JWT is meant. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** Claims besides the registered ones (sub, iss, aud, iat, exp, jti). */
export type PrincipalClaims =
  { kind: 'user'; org: string; role: Role; idp?: string } | { kind: 'node'; org: string; node: string };

export function claimsFor(principal: Principal): PrincipalClaims {
  switch (principal.kind) {
    case 'user':
      return principal.idp === undefined
        ? { kind: 'user', org: principal.org, role: principal.role }
        : { kind: 'user', org: principal.org, role: principal.role, idp: principal.idp };
    case 'node':
      return { kind: 'node', org: principal.org, node: principal.node };
    case 'service':
      // A key is checked at the exchange on every use, so that revoking it counts at once.
      throw new Error('service accounts use their keys, not access tokens');
  }
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && !value.includes('/');
}

/**
 * The principal a verified payload names, or undefined when the claims do not describe one
 * consistently: the subject must be "org/name" and agree with the org and node claims.
 */
export function principalFromClaims(payload: JWTPayload): Principal | undefined {
  const { sub, org, kind } = payload;
  if (typeof sub !== 'string' || !isName(org) || !sub.startsWith(`${org}/`)) return undefined;
  const name = sub.slice(org.length + 1);
  if (!isName(name)) return undefined;
  switch (kind) {
    case 'user': {
      const role = roleNamed(payload.role);
      if (!role) return undefined;
      const user = { kind: 'user' as const, org, username: name, role };
      return typeof payload.idp === 'string' ? { ...user, idp: payload.idp } : user;
    }
    case 'node':
      return payload.node === name ? { kind: 'node', org, node: name } : undefined;
    default:
      return undefined;
  }
}
