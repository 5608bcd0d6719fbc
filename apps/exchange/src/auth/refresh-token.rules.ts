/**
 * What a refresh token is and when one may renew an access token, decided from its stored row
 * and the time alone. A refresh token is a random secret stored only as its hash; it is good
 * for one renewal, until the login it belongs to expires or is ended.
 */
import { AuthenticationError, AuthErrorCode, generateSecret } from '@careen/auth';
import { hash } from 'node:crypto';

export interface StoredRefreshToken {
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

export function newRefreshToken(): { token: string; tokenHash: string } {
  const token = generateSecret(32);
  return { token, tokenHash: hashRefreshToken(token) };
}

/** The random secret has all the entropy it needs: a fast hash is enough to keep it unusable at rest. */
export function hashRefreshToken(token: string): string {
  return hash('sha256', token, 'base64url');
}

/** Why the token cannot renew the access token now; undefined when it can. */
export function refreshRefusal(
  stored: StoredRefreshToken | undefined,
  now: Date,
): AuthenticationError | undefined {
  if (!stored) return new AuthenticationError(AuthErrorCode.InvalidToken, 'unknown refresh token');
  if (stored.revokedAt) {
    return new AuthenticationError(AuthErrorCode.InvalidToken, 'refresh token revoked: the login was ended');
  }
  if (stored.expiresAt.getTime() <= now.getTime()) {
    return new AuthenticationError(
      AuthErrorCode.TokenExpired,
      `refresh token expired: the login ended at ${stored.expiresAt.toISOString()}`,
    );
  }
  if (stored.usedAt) {
    return new AuthenticationError(
      AuthErrorCode.InvalidToken,
      'refresh token already used: each one renews the access token once',
    );
  }
  return undefined;
}

/** Whole seconds from `now` to `expiresAt`, as a token response counts them. */
export function secondsUntil(expiresAt: Date, now: Date): number {
  return Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
}
