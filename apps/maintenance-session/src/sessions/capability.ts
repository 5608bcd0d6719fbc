/**
 * The capability in a project's `reply_url` and `instance_ids` URL: an HMAC of the project id
 * under the session's own key, so it opens that session's project and nothing else, and needs
 * no Careen login (Fenix-era VNF managers send their own cloud's token, which Careen cannot check).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function newCapabilityKey(): string {
  return randomBytes(32).toString('base64url');
}

export function capabilityFor(key: string, project: string): string {
  return createHmac('sha256', key).update(`project:${project}`).digest('base64url');
}

export function capabilityOpens(key: string, project: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(capabilityFor(key, project));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
