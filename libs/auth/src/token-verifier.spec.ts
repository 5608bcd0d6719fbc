import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { base64url, decodeJwt, decodeProtectedHeader, importJWK, SignJWT, type JSONWebKeySet } from 'jose';
import { AuthenticationError, AuthErrorCode, AuthServiceUnavailableError } from './auth.errors';
import { type NodePrincipal, type Principal, type UserPrincipal } from './principal';
import { generateSigningKey, toJwks, type SigningKeyMaterial } from './signing-key';
import { TokenIssuer } from './token-issuer';
import { JwksTokenVerifier } from './token-verifier';

const ISSUER = 'careen-exchange';
const AUDIENCE = 'careen';
const alice: UserPrincipal = { kind: 'user', org: 'acme', username: 'alice', role: 'orgAdmin' };
const edge1: NodePrincipal = { kind: 'node', org: 'acme', node: 'edge-1' };

function issuerFor(
  key: SigningKeyMaterial,
  overrides: Partial<ConstructorParameters<typeof TokenIssuer>[1]> = {},
) {
  return new TokenIssuer(key, { issuer: ISSUER, audience: AUDIENCE, ttlSeconds: 300, ...overrides });
}

function localVerifier(jwks: () => JSONWebKeySet) {
  return JwksTokenVerifier.local(jwks, { issuer: ISSUER, audience: AUDIENCE });
}

async function signRaw(
  key: SigningKeyMaterial,
  claims: Record<string, unknown>,
  kid = key.kid,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(await importJWK(key.privateJwk, 'ES256'));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

async function expectAuthenticationError(promise: Promise<unknown>, code: AuthErrorCode, message: string) {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(AuthenticationError);
  expect(error).toMatchObject({ code, message });
}

describe('access tokens', () => {
  let key: SigningKeyMaterial;
  let issuer: TokenIssuer;
  let verifier: JwksTokenVerifier;

  beforeAll(async () => {
    key = await generateSigningKey();
    issuer = issuerFor(key);
    verifier = localVerifier(() => toJwks([key]));
  });

  it('issues a token that verifies back to the same user', async () => {
    const { accessToken, expiresIn } = await issuer.issue(alice);
    expect(expiresIn).toBe(300);
    await expect(verifier.verify(accessToken)).resolves.toEqual(alice);
  });

  it('issues a token that verifies back to the same node', async () => {
    const { accessToken } = await issuer.issue(edge1);
    await expect(verifier.verify(accessToken)).resolves.toEqual(edge1);
  });

  it('writes subject, org, kind, role, issuer, audience, lifetime and a unique id', async () => {
    const clock = () => new Date('2030-01-01T00:00:00Z');
    const issued = issuerFor(key, { clock, ttlSeconds: 120 });
    const first = await issued.issue(alice);
    const second = await issued.issue(edge1);
    const userClaims = decodeJwt(first.accessToken);
    expect(userClaims).toMatchObject({
      sub: 'acme/alice',
      org: 'acme',
      kind: 'user',
      role: 'orgAdmin',
      iss: ISSUER,
      aud: AUDIENCE,
      iat: 1893456000,
      exp: 1893456120,
    });
    expect(decodeJwt(second.accessToken)).toMatchObject({ sub: 'acme/edge-1', kind: 'node', node: 'edge-1' });
    expect(userClaims.jti).toEqual(expect.any(String));
    expect(userClaims.jti).not.toEqual(decodeJwt(second.accessToken).jti);
    expect(decodeProtectedHeader(first.accessToken)).toEqual({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' });
  });

  it('rejects an expired token with TokenExpired', async () => {
    const anHourAgo = () => new Date(Date.now() - 3600_000);
    const { accessToken } = await issuerFor(key, { clock: anHourAgo, ttlSeconds: 60 }).issue(alice);
    await expectAuthenticationError(
      verifier.verify(accessToken),
      AuthErrorCode.TokenExpired,
      'token expired',
    );
  });

  it('tolerates a few seconds of clock skew', async () => {
    const justExpired = () => new Date(Date.now() - 62_000);
    const { accessToken } = await issuerFor(key, { clock: justExpired, ttlSeconds: 60 }).issue(alice);
    await expect(verifier.verify(accessToken)).resolves.toEqual(alice);
  });

  it('honours its own injected clock', async () => {
    const { accessToken } = await issuer.issue(alice);
    const later = JwksTokenVerifier.local(() => toJwks([key]), {
      issuer: ISSUER,
      audience: AUDIENCE,
      clock: () => new Date(Date.now() + 600_000),
    });
    await expectAuthenticationError(later.verify(accessToken), AuthErrorCode.TokenExpired, 'token expired');
  });

  it('rejects a token signed by an unknown key', async () => {
    const stranger = await generateSigningKey();
    const { accessToken } = await issuerFor(stranger).issue(alice);
    await expectAuthenticationError(
      verifier.verify(accessToken),
      AuthErrorCode.InvalidToken,
      'invalid token',
    );
  });

  it('rejects a forged token that claims a trusted key id', async () => {
    const forger = await generateSigningKey();
    const forged = await signRaw(
      forger,
      { sub: 'acme/alice', org: 'acme', kind: 'user', role: 'hubAdmin' },
      key.kid,
    );
    await expectAuthenticationError(verifier.verify(forged), AuthErrorCode.InvalidToken, 'invalid token');
  });

  it('rejects a token whose payload was tampered with', async () => {
    const { accessToken } = await issuer.issue({ ...alice, role: 'operator' });
    const [header, , signature] = accessToken.split('.');
    const claims = decodeJwt(accessToken);
    const raised = base64url.encode(JSON.stringify({ ...claims, role: 'hubAdmin' }));
    const tampered = [header, raised, signature].join('.');
    await expectAuthenticationError(verifier.verify(tampered), AuthErrorCode.InvalidToken, 'invalid token');
  });

  it('rejects a token for another audience or from another issuer', async () => {
    const otherAudience = await issuerFor(key, { audience: 'someone-else' }).issue(alice);
    const otherIssuer = await issuerFor(key, { issuer: 'not-the-exchange' }).issue(alice);
    await expectAuthenticationError(
      verifier.verify(otherAudience.accessToken),
      AuthErrorCode.InvalidToken,
      'invalid token',
    );
    await expectAuthenticationError(
      verifier.verify(otherIssuer.accessToken),
      AuthErrorCode.InvalidToken,
      'invalid token',
    );
  });

  it('rejects unsigned and symmetric-key tokens', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      sub: 'acme/alice',
      org: 'acme',
      kind: 'user',
      role: 'hubAdmin',
      iss: ISSUER,
      aud: AUDIENCE,
    };
    const unsigned = [
      base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt' })),
      base64url.encode(JSON.stringify({ ...claims, iat: now, exp: now + 60 })),
      '',
    ].join('.');
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'at+jwt' })
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(new TextEncoder().encode(JSON.stringify(key.publicJwk)));
    await expectAuthenticationError(verifier.verify(unsigned), AuthErrorCode.InvalidToken, 'invalid token');
    await expectAuthenticationError(verifier.verify(hmac), AuthErrorCode.InvalidToken, 'invalid token');
  });

  it("reads a token of the previous release naming the role `user` as an operator's", async () => {
    const token = await signRaw(key, { sub: 'acme/alice', org: 'acme', kind: 'user', role: 'user' });
    expect(await verifier.verify(token)).toEqual({ ...alice, role: 'operator' });
  });

  it.each([
    ['a missing role', { sub: 'acme/alice', org: 'acme', kind: 'user' }],
    ['an unknown role', { sub: 'acme/alice', org: 'acme', kind: 'user', role: 'root' }],
    ['a subject outside the org', { sub: 'other/alice', org: 'acme', kind: 'user', role: 'operator' }],
    [
      'a node claim that disagrees with the subject',
      { sub: 'acme/edge-1', org: 'acme', kind: 'node', node: 'edge-2' },
    ],
    ['an unknown kind', { sub: 'acme/svc', org: 'acme', kind: 'service' }],
    ['a nested subject', { sub: 'acme/a/b', org: 'acme', kind: 'user', role: 'operator' }],
  ])('rejects a genuinely signed token with %s as invalid token claims', async (_label, claims) => {
    const token = await signRaw(key, claims);
    await expectAuthenticationError(
      verifier.verify(token),
      AuthErrorCode.InvalidToken,
      'invalid token claims',
    );
  });

  it.each(['', 'not-a-jwt', 'a.b.c', 'eyJhbGciOiJFUzI1NiJ9.e30.'])(
    'rejects the malformed token %j',
    async (token) => {
      await expectAuthenticationError(verifier.verify(token), AuthErrorCode.InvalidToken, 'invalid token');
    },
  );

  it('follows key rotation in the local key set', async () => {
    let jwks = toJwks([key]);
    const rotating = localVerifier(() => jwks);
    const next = await generateSigningKey();
    const fresh = await issuerFor(next).issue(edge1);
    await expectAuthenticationError(
      rotating.verify(fresh.accessToken),
      AuthErrorCode.InvalidToken,
      'invalid token',
    );
    jwks = toJwks([key, next]);
    await expect(rotating.verify(fresh.accessToken)).resolves.toEqual(edge1);
  });

  describe('the cache of verified tokens', () => {
    /** A verifier whose clock the test moves, counting how often it needs the key set (once per full check). */
    function countingVerifier(cacheEntries?: number) {
      const counted = { checks: 0, now: Date.now() };
      const cached = JwksTokenVerifier.local(
        () => {
          counted.checks++;
          return toJwks([key]);
        },
        { issuer: ISSUER, audience: AUDIENCE, clock: () => new Date(counted.now), cacheEntries },
      );
      return { cached, counted };
    }

    it('checks a token once and answers from the cache until the token expires', async () => {
      const { cached, counted } = countingVerifier();
      const { accessToken } = await issuerFor(key, { ttlSeconds: 60 }).issue(edge1);
      await expect(cached.verify(accessToken)).resolves.toEqual(edge1);
      await expect(cached.verify(accessToken)).resolves.toEqual(edge1);
      counted.now += 59_000;
      await expect(cached.verify(accessToken)).resolves.toEqual(edge1);
      expect(counted.checks).toBe(1);
      counted.now += 10_000;
      await expectAuthenticationError(
        cached.verify(accessToken),
        AuthErrorCode.TokenExpired,
        'token expired',
      );
      expect(counted.checks).toBe(2);
    });

    it('hands out a copy, so a caller cannot change what the next request sees', async () => {
      const { cached } = countingVerifier();
      const { accessToken } = await issuer.issue(alice);
      const first = await cached.verify(accessToken);
      (first as { org: string }).org = 'evil';
      await expect(cached.verify(accessToken)).resolves.toEqual(alice);
    });

    it('never caches a token that failed', async () => {
      const { cached, counted } = countingVerifier();
      const { accessToken } = await issuer.issue(alice);
      const [header, , signature] = accessToken.split('.');
      const tampered = `${header}.${base64url.encode(JSON.stringify({ sub: 'acme/root' }))}.${signature}`;
      for (let i = 0; i < 2; i++) {
        await expectAuthenticationError(cached.verify(tampered), AuthErrorCode.InvalidToken, 'invalid token');
      }
      expect(counted.checks).toBe(2);
    });

    it('is bounded: the oldest token is checked again once newer ones filled it', async () => {
      const { cached, counted } = countingVerifier(1);
      const first = (await issuer.issue(alice)).accessToken;
      const second = (await issuer.issue(edge1)).accessToken;
      await cached.verify(first);
      await cached.verify(second);
      await cached.verify(second);
      await cached.verify(first);
      expect(counted.checks).toBe(3);
    });

    it("holds a 20,000-agent fleet's tokens at once by default", async () => {
      const { cached, counted } = countingVerifier();
      const tokens = await Promise.all(
        Array.from({ length: 20_000 }, async (_, i) => {
          const { accessToken } = await issuer.issue({ kind: 'node', org: 'edge', node: `n${i}` });
          return accessToken;
        }),
      );
      for (const token of tokens) await cached.verify(token);
      for (const token of tokens) await cached.verify(token);
      expect(counted.checks).toBe(20_000);
    }, 120_000);

    it('can be turned off', async () => {
      const { cached, counted } = countingVerifier(0);
      const { accessToken } = await issuer.issue(alice);
      await cached.verify(accessToken);
      await cached.verify(accessToken);
      expect(counted.checks).toBe(2);
    });
  });

  it('reports an unreadable local key set as the service being unavailable', async () => {
    const broken = localVerifier(() => {
      throw new Error('key store offline');
    });
    const { accessToken } = await issuer.issue(alice);
    await expect(broken.verify(accessToken)).rejects.toBeInstanceOf(AuthServiceUnavailableError);
  });
});

describe('remote key set', () => {
  let key: SigningKeyMaterial;
  let server: Server;
  let jwksUrl: URL;
  let served: JSONWebKeySet;
  let status = 200;
  let requests = 0;
  let waiters: (() => void)[] = [];
  /** Resolves when the key set is next asked for. */
  const nextRequest = () => new Promise<void>((resolve) => waiters.push(resolve));

  beforeAll(async () => {
    key = await generateSigningKey();
    served = toJwks([key]);
    server = createServer((request, response) => {
      requests += 1;
      for (const resolve of waiters.splice(0)) resolve();
      if (request.url !== '/v1/auth/jwks') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(served));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    jwksUrl = new URL(`http://127.0.0.1:${port}/v1/auth/jwks`);
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    served = toJwks([key]);
    status = 200;
    requests = 0;
    waiters = [];
  });

  it('fetches the key set as soon as it is made, and not again for the first token', async () => {
    const fetched = nextRequest();
    const verifier = JwksTokenVerifier.remote(jwksUrl, { issuer: ISSUER, audience: AUDIENCE });
    await fetched;
    await expect(verifier.verify((await issuerFor(key).issue(alice)).accessToken)).resolves.toEqual(alice);
    expect(requests).toBe(1);
  });

  it('keeps checking tokens with the keys it holds while a refresh of old keys fails', async () => {
    let now = Date.now();
    const verifier = JwksTokenVerifier.remote(jwksUrl, {
      issuer: ISSUER,
      audience: AUDIENCE,
      clock: () => new Date(now),
      maxAgeMs: 60_000,
      cacheEntries: 0,
    });
    const issuer = issuerFor(key);
    const accepts = async (principal: Principal) =>
      expect(verifier.verify((await issuer.issue(principal)).accessToken)).resolves.toEqual(principal);
    await accepts(alice);
    expect(requests).toBe(1);

    // The keys are old and the exchange cannot answer: the refresh fails, the held keys still check.
    status = 503;
    now += 61_000;
    const refreshed = nextRequest();
    await accepts(edge1);
    await refreshed;
    await accepts(alice);
    // Tried again only after the cooldown, and then taken.
    expect(requests).toBe(2);
    status = 200;
    now += 31_000;
    const retried = nextRequest();
    await accepts(edge1);
    await retried;
    expect(requests).toBe(3);
  });

  it('verifies tokens against the key set fetched over HTTP, fetching it once', async () => {
    const verifier = JwksTokenVerifier.remote(jwksUrl, { issuer: ISSUER, audience: AUDIENCE });
    const issuer = issuerFor(key);
    for (const principal of [alice, edge1, alice]) {
      const { accessToken } = await issuer.issue(principal);
      await expect(verifier.verify(accessToken)).resolves.toEqual(principal);
    }
    expect(requests).toBe(1);
  });

  it('refetches the key set when a token names a new key', async () => {
    const verifier = JwksTokenVerifier.remote(jwksUrl, { issuer: ISSUER, audience: AUDIENCE, cooldownMs: 0 });
    await verifier.verify((await issuerFor(key).issue(alice)).accessToken);
    const next = await generateSigningKey();
    served = toJwks([key, next]);
    await expect(verifier.verify((await issuerFor(next).issue(edge1)).accessToken)).resolves.toEqual(edge1);
    expect(requests).toBe(2);
  });

  it('does not refetch for unknown keys during the cooldown', async () => {
    const verifier = JwksTokenVerifier.remote(jwksUrl, { issuer: ISSUER, audience: AUDIENCE });
    await verifier.verify((await issuerFor(key).issue(alice)).accessToken);
    const stranger = await generateSigningKey();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const { accessToken } = await issuerFor(stranger).issue(alice);
      await expectAuthenticationError(
        verifier.verify(accessToken),
        AuthErrorCode.InvalidToken,
        'invalid token',
      );
    }
    expect(requests).toBe(1);
  });

  it('reports a failing key set endpoint as the service being unavailable', async () => {
    status = 500;
    const verifier = JwksTokenVerifier.remote(jwksUrl, { issuer: ISSUER, audience: AUDIENCE });
    const { accessToken } = await issuerFor(key).issue(alice);
    const error = await rejection(verifier.verify(accessToken));
    expect(error).toBeInstanceOf(AuthServiceUnavailableError);
    expect(error).toMatchObject({ code: AuthErrorCode.AuthServiceUnavailable });
  });

  it('reports an unreachable exchange as the service being unavailable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const verifier = JwksTokenVerifier.remote(new URL(`http://127.0.0.1:${port}/v1/auth/jwks`), {
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    const { accessToken } = await issuerFor(key).issue(alice);
    await expect(verifier.verify(accessToken)).rejects.toBeInstanceOf(AuthServiceUnavailableError);
  });
});
