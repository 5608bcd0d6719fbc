import { calculateJwkThumbprint } from 'jose';
import { generateSigningKey, toJwks } from './signing-key';

describe('signing keys', () => {
  it('generates an ES256 key pair identified by its public thumbprint', async () => {
    const key = await generateSigningKey();
    expect(key.kid).toEqual(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
    expect(key.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', kid: key.kid, alg: 'ES256', use: 'sig' });
    expect(key.publicJwk.d).toBeUndefined();
    expect(key.privateJwk.d).toEqual(expect.any(String));
  });

  it('publishes only public keys in the key set', async () => {
    const first = await generateSigningKey();
    const second = await generateSigningKey();
    const leaky = { ...second, publicJwk: { ...second.publicJwk, d: second.privateJwk.d } };
    const jwks = toJwks([first, leaky]);
    expect(jwks.keys.map((key) => key.kid)).toEqual([first.kid, second.kid]);
    expect(jwks.keys.every((key) => key.d === undefined)).toBe(true);
  });
});
