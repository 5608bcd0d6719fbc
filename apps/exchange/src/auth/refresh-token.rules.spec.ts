import { AuthErrorCode } from '@careen/auth';
import { hashRefreshToken, newRefreshToken, refreshRefusal, secondsUntil } from './refresh-token.rules';

const now = new Date('2030-01-01T12:00:00Z');
const live = { expiresAt: new Date('2030-01-01T13:00:00Z'), usedAt: null, revokedAt: null };

describe('refresh token rules', () => {
  it('lets a live, unused token renew', () => {
    expect(refreshRefusal(live, now)).toBeUndefined();
  });

  it.each([
    ['an unknown token', undefined, AuthErrorCode.InvalidToken, 'unknown refresh token'],
    ['a revoked token', { ...live, revokedAt: now }, AuthErrorCode.InvalidToken, 'refresh token revoked'],
    ['a used token', { ...live, usedAt: now }, AuthErrorCode.InvalidToken, 'refresh token already used'],
    ['an expired token', { ...live, expiresAt: now }, AuthErrorCode.TokenExpired, 'refresh token expired'],
    [
      'a revoked and expired token as revoked',
      { ...live, revokedAt: now, expiresAt: now },
      AuthErrorCode.InvalidToken,
      'refresh token revoked',
    ],
  ])('refuses %s with a reason', (_what, stored, code, message) => {
    const refusal = refreshRefusal(stored, now);
    expect(refusal?.code).toBe(code);
    expect(refusal?.message).toContain(message);
  });

  it('makes a fresh random token whose hash alone is stored', () => {
    const first = newRefreshToken();
    const second = newRefreshToken();
    expect(first.token).not.toBe(second.token);
    expect(first.tokenHash).toBe(hashRefreshToken(first.token));
    expect(first.tokenHash).not.toContain(first.token);
  });

  it('counts whole seconds left, never below zero', () => {
    expect(secondsUntil(new Date('2030-01-01T12:00:10.900Z'), now)).toBe(10);
    expect(secondsUntil(new Date('2030-01-01T11:00:00Z'), now)).toBe(0);
  });
});
