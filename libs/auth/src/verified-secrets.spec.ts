import { hashSecret, verifySecret } from './secret-hash';
import { VerifiedSecrets } from './verified-secrets';

describe('VerifiedSecrets', () => {
  /** The real scrypt check, counted. */
  function counting() {
    const calls: string[] = [];
    const verify = (secret: string, encoded: string) => {
      calls.push(secret);
      return verifySecret(secret, encoded);
    };
    return { calls, secrets: new VerifiedSecrets({ maxEntries: 10, ttlMs: 60_000 }, verify) };
  }

  it('checks a secret with scrypt once, then from memory while its hash is unchanged', async () => {
    const { calls, secrets } = counting();
    const stored = await hashSecret('node-token-0123456789');
    expect(await secrets.matches('node-token-0123456789', stored)).toBe(true);
    expect(await secrets.matches('node-token-0123456789', stored)).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('checks a wrong secret with scrypt every time, and never accepts it', async () => {
    const { calls, secrets } = counting();
    const stored = await hashSecret('node-token-0123456789');
    await secrets.matches('node-token-0123456789', stored);
    expect(await secrets.matches('node-token-wrong', stored)).toBe(false);
    expect(await secrets.matches('node-token-wrong', stored)).toBe(false);
    expect(calls).toEqual(['node-token-0123456789', 'node-token-wrong', 'node-token-wrong']);
  });

  it('does not carry a remembered secret over to a new hash of it (a token set again)', async () => {
    const { calls, secrets } = counting();
    await secrets.matches('node-token-0123456789', await hashSecret('node-token-0123456789'));
    const replaced = await hashSecret('another-token-0123456789');
    expect(await secrets.matches('node-token-0123456789', replaced)).toBe(false);
    expect(await secrets.matches('another-token-0123456789', replaced)).toBe(true);
    expect(calls).toHaveLength(3);
  });

  it('answers false for malformed input without remembering anything', async () => {
    const { secrets } = counting();
    expect(await secrets.matches('x', 'not-a-hash')).toBe(false);
    expect(await secrets.matches(42 as unknown as string, 'not-a-hash')).toBe(false);
  });
});
