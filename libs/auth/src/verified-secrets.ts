/**
 * Remembers secrets that matched their stored scrypt hash, so a client presenting the same
 * secret again (an agent fetching its next access token, every token lifetime) is checked
 * with a keyed digest instead of another scrypt. At fleet scale those scrypts are what the
 * exchange would otherwise spend most of a core on.
 *
 * Entries are keyed by the stored hash itself: a changed secret has a new hash (a new salt)
 * and is never matched from memory, on any replica. A secret that does not match what is
 * remembered is checked with scrypt as before, so a wrong secret costs what it always did. The
 * digests are HMACs under a key that lives only in this process. Meant for generated node
 * tokens; user passwords are always checked with scrypt.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ExpiringCache } from './expiring-cache';
import { verifySecret } from './secret-hash';

export class VerifiedSecrets {
  private readonly key = randomBytes(32);
  private readonly remembered: ExpiringCache<Buffer>;

  constructor(
    private readonly options: { maxEntries: number; ttlMs: number } = {
      maxEntries: 100_000,
      ttlMs: 3_600_000,
    },
    private readonly verify: (secret: string, encoded: string) => Promise<boolean> = verifySecret,
  ) {
    this.remembered = new ExpiringCache(options.maxEntries);
  }

  /** True when the secret matches the encoded hash, as `verifySecret` answers. */
  async matches(secret: string, encoded: string): Promise<boolean> {
    if (typeof secret !== 'string' || typeof encoded !== 'string') return false;
    const digest = createHmac('sha256', this.key).update(secret).digest();
    const known = this.remembered.get(encoded);
    if (known && timingSafeEqual(known, digest)) return true;
    const valid = await this.verify(secret, encoded);
    if (valid) this.remembered.set(encoded, digest, this.options.ttlMs);
    return valid;
  }
}
