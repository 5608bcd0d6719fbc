import { randomBytes } from 'node:crypto';
import { parseSignatureHeader } from './package-signature';

describe('package signature header', () => {
  it('decodes base64 of 64 bytes, with or without padding', () => {
    const signature = randomBytes(64);
    expect(parseSignatureHeader(signature.toString('base64'))?.equals(signature)).toBe(true);
    expect(parseSignatureHeader(signature.toString('base64').replace(/=+$/, ''))?.equals(signature)).toBe(
      true,
    );
    expect(parseSignatureHeader(undefined)).toBeUndefined();
  });

  it.each([
    ['not base64', 'not base64!'],
    ['the wrong length', randomBytes(32).toString('base64')],
    ['empty', ''],
  ])('refuses a signature that is %s', (_what, value) => {
    expect(() => parseSignatureHeader(value)).toThrow(/x-careen-signature/);
  });
});
