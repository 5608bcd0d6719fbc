import { apiKeyMatches, generateApiKey, isApiKey, parseApiKey } from './api-key';

describe('service-account keys', () => {
  it('makes keys that parse back to their id and match their digest, and no other secret', () => {
    const { id, key, digest } = generateApiKey();
    expect(key).toMatch(/^ck_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(isApiKey(key)).toBe(true);
    const parts = parseApiKey(key);
    expect(parts?.id).toBe(id);
    expect(apiKeyMatches(parts!.secret, digest)).toBe(true);
    expect(apiKeyMatches(`${parts!.secret.slice(0, -1)}A`, digest)).toBe(parts!.secret.endsWith('A'));
    expect(generateApiKey().key).not.toBe(key);
  });

  it.each([
    '',
    'ck_',
    'ck_0123_abc',
    `ck_0123456789ABCDEF_${'a'.repeat(43)}`,
    `ck_0123456789abcdef_${'a'.repeat(42)}`,
  ])('does not read %j as a key', (token) => {
    expect(parseApiKey(token)).toBeUndefined();
  });

  it('tells a key from an access token by its prefix', () => {
    expect(isApiKey('eyJhbGciOiJFUzI1NiJ9.e30.sig')).toBe(false);
  });
});
