/**
 * A service account's key as a client holds it: `ck_<id>_<secret>`, sent as a bearer token.
 * The id (16 hex digits) names the key in lists, audit rows and revocations; the secret (32
 * random bytes, base64url) is shown once and stored only as its SHA-256 digest, which is enough
 * for a secret of that strength and costs no scrypt on every request.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Principal } from './principal';

const FORM = /^ck_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface ApiKeyParts {
  id: string;
  secret: string;
}

export function isApiKey(token: string): boolean {
  return token.startsWith('ck_');
}

/** The key's id and secret, or undefined when it is not written as a key is. */
export function parseApiKey(token: string): ApiKeyParts | undefined {
  const match = FORM.exec(token);
  return match ? { id: match[1]!, secret: match[2]! } : undefined;
}

/** A new key: its id, the whole key to show once, and the digest to store. */
export function generateApiKey(): { id: string; key: string; digest: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, key: `ck_${id}_${secret}`, digest: apiKeyDigest(secret) };
}

export function apiKeyDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether `secret` is the one whose digest was stored, compared in constant time. */
export function apiKeyMatches(secret: string, storedDigest: string): boolean {
  const given = Buffer.from(apiKeyDigest(secret), 'hex');
  const stored = Buffer.from(storedDigest, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * The port through which a service checks a key. The exchange implements it against its own
 * keys; every other service asks the exchange, on every request, so a revoked key is refused at
 * once everywhere.
 */
export interface KeyAuthenticator {
  /** Throws AuthenticationError for a wrong, expired or revoked key, AuthServiceUnavailableError when it cannot tell. */
  authenticate(key: string): Promise<Principal>;
}
