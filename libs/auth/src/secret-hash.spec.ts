import { generateSecret, hashSecret, verifySecret } from './secret-hash';

describe('secret hashing', () => {
  it('verifies a secret against its own hash', async () => {
    const encoded = await hashSecret('correct horse battery staple');
    await expect(verifySecret('correct horse battery staple', encoded)).resolves.toBe(true);
  });

  it('rejects a wrong secret', async () => {
    const encoded = await hashSecret('s3cret');
    await expect(verifySecret('s3cret ', encoded)).resolves.toBe(false);
    await expect(verifySecret('', encoded)).resolves.toBe(false);
  });

  it('encodes scheme, parameters, a 16-byte salt and a 32-byte key', async () => {
    const encoded = await hashSecret('pw');
    const [scheme, cost, blockSize, parallelism, salt = '', key = ''] = encoded.split('$');
    expect([scheme, cost, blockSize, parallelism]).toEqual(['scrypt', '16384', '8', '1']);
    expect(Buffer.from(salt, 'base64')).toHaveLength(16);
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
  });

  it('salts every hash, so equal secrets hash differently', async () => {
    const [first, second] = await Promise.all([hashSecret('same'), hashSecret('same')]);
    expect(first).not.toEqual(second);
  });

  it('verifies a hash made with other valid parameters', async () => {
    const encoded = await hashSecret('pw');
    const [, , , , salt = ''] = encoded.split('$');
    // A cheaper cost is still honoured when read back, as older rows may have been written so.
    const { scryptSync } = await import('node:crypto');
    const key = scryptSync('pw', Buffer.from(salt, 'base64'), 32, { N: 1024, r: 8, p: 1 });
    await expect(verifySecret('pw', `scrypt$1024$8$1$${salt}$${key.toString('base64')}`)).resolves.toBe(true);
  });

  it.each([
    ['an empty string', ''],
    ['another scheme', 'bcrypt$2b$10$abcdefghijklmnopqrstuv'],
    ['too few fields', 'scrypt$16384$8$1$c2FsdA=='],
    ['a cost that is not a power of two', 'scrypt$1000$8$1$c2FsdHNhbHRzYWx0c2FsdA==$' + 'A'.repeat(44)],
    ['a cost too large to compute', 'scrypt$1048576$32$1$c2FsdHNhbHRzYWx0c2FsdA==$' + 'A'.repeat(44)],
    ['a non-numeric parameter', 'scrypt$abc$8$1$c2FsdHNhbHRzYWx0c2FsdA==$' + 'A'.repeat(44)],
    ['a salt that is not base64', 'scrypt$16384$8$1$not*base64$' + 'A'.repeat(44)],
    ['a key that is too short', 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$QUJD'],
  ])('answers false, without throwing, for %s', async (_label, encoded) => {
    await expect(verifySecret('pw', encoded)).resolves.toBe(false);
  });

  it('generates url-safe secrets of the requested entropy', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(generateSecret(48)).toHaveLength(64);
    expect(generateSecret()).not.toEqual(secret);
  });
});
