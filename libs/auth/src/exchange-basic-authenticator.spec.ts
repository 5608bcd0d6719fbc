import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { AuthenticationError, AuthErrorCode, AuthServiceUnavailableError } from './auth.errors';
import { ExchangeBasicAuthenticator } from './exchange-basic-authenticator';
import { type Principal } from './principal';
import { hashSecret, verifySecret } from './secret-hash';
import { generateSigningKey, toJwks } from './signing-key';
import { TokenIssuer } from './token-issuer';
import { JwksTokenVerifier, type TokenVerifier } from './token-verifier';

const ISSUER = 'careen-exchange';
const AUDIENCE = 'careen';

type Mode = 'normal' | 'unavailable' | 'hang' | 'garbage';

/** A small stand-in for the exchange's POST /v1/auth/token, backed by hashed secrets. */
class FakeExchange {
  mode: Mode = 'normal';
  ttlSeconds = 300;
  readonly requests: Record<string, unknown>[] = [];
  private server!: Server;
  private issuer!: TokenIssuer;
  verifier!: TokenVerifier;
  url!: URL;
  private readonly users = new Map<string, { hash: string; principal: Principal }>();
  private readonly nodes = new Map<string, { hash: string; principal: Principal }>();
  private readonly hanging: ServerResponse[] = [];

  async start(): Promise<void> {
    const key = await generateSigningKey();
    this.issuer = new TokenIssuer(key, { issuer: ISSUER, audience: AUDIENCE, ttlSeconds: 300 });
    this.verifier = JwksTokenVerifier.local(() => toJwks([key]), { issuer: ISSUER, audience: AUDIENCE });
    this.users.set('acme/alice', {
      hash: await hashSecret('wonder:land'),
      principal: { kind: 'user', org: 'acme', username: 'alice', role: 'orgAdmin' },
    });
    this.users.set('acme/bob', {
      hash: await hashSecret('builder'),
      principal: { kind: 'user', org: 'acme', username: 'bob', role: 'operator' },
    });
    this.nodes.set('acme/edge-1', {
      hash: await hashSecret('node-token'),
      principal: { kind: 'node', org: 'acme', node: 'edge-1' },
    });
    this.server = createServer((request, response) => {
      void this.handle(request, response);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = new URL(`http://127.0.0.1:${port}`);
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/auth/token') {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
    this.requests.push(body);
    if (this.mode === 'hang') {
      this.hanging.push(response);
      return;
    }
    if (this.mode === 'unavailable') {
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"statusCode":503}');
      return;
    }
    if (this.mode === 'garbage') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"token":42}');
      return;
    }
    const [record, secret] =
      'username' in body
        ? [this.users.get(`${body.org}/${body.username}`), body.password]
        : [this.nodes.get(`${body.org}/${body.node}`), body.token];
    if (!record || secret === undefined || !(await verifySecret(secret, record.hash))) {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ statusCode: 401, error: 'Unauthorized', message: 'invalid credentials' }),
      );
      return;
    }
    const { accessToken } = await this.issuer.issue(record.principal);
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ accessToken, expiresIn: this.ttlSeconds }));
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('ExchangeBasicAuthenticator', () => {
  const exchange = new FakeExchange();
  let now: number;
  const clock = () => now;

  beforeAll(async () => {
    await exchange.start();
  });

  afterAll(async () => {
    await exchange.stop();
  });

  beforeEach(() => {
    exchange.mode = 'normal';
    exchange.ttlSeconds = 300;
    exchange.requests.length = 0;
    now = 1_000_000;
  });

  const authenticator = (options: ConstructorParameters<typeof ExchangeBasicAuthenticator>[2] = {}) =>
    new ExchangeBasicAuthenticator(exchange.url, exchange.verifier, { clock, ...options });

  it('authenticates a user with one request to the exchange', async () => {
    await expect(authenticator().authenticate('acme', 'alice', 'wonder:land')).resolves.toEqual({
      kind: 'user',
      org: 'acme',
      username: 'alice',
      role: 'orgAdmin',
    });
    expect(exchange.requests).toEqual([{ org: 'acme', username: 'alice', password: 'wonder:land' }]);
  });

  it('authenticates a node after the exchange refuses the credentials as a user', async () => {
    await expect(authenticator().authenticate('acme', 'edge-1', 'node-token')).resolves.toEqual({
      kind: 'node',
      org: 'acme',
      node: 'edge-1',
    });
    expect(exchange.requests).toEqual([
      { org: 'acme', username: 'edge-1', password: 'node-token' },
      { org: 'acme', node: 'edge-1', token: 'node-token' },
    ]);
  });

  it('rejects credentials refused both as a user and as a node with invalid credentials', async () => {
    const error = await rejection(authenticator().authenticate('acme', 'alice', 'wrong'));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: AuthErrorCode.InvalidCredentials, message: 'invalid credentials' });
    expect(exchange.requests).toHaveLength(2);
  });

  it('answers repeated credentials from its cache without asking the exchange', async () => {
    const basic = authenticator();
    const first = await basic.authenticate('acme', 'edge-1', 'node-token');
    exchange.requests.length = 0;
    await expect(basic.authenticate('acme', 'edge-1', 'node-token')).resolves.toEqual(first);
    expect(exchange.requests).toHaveLength(0);
  });

  it('never serves a cached principal for a different secret', async () => {
    const basic = authenticator();
    await basic.authenticate('acme', 'alice', 'wonder:land');
    await expect(basic.authenticate('acme', 'alice', 'wonder')).rejects.toBeInstanceOf(AuthenticationError);
    await expect(basic.authenticate('acme', 'alice:wonder', 'land')).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('asks the exchange again once the cache time to live has passed', async () => {
    const basic = authenticator({ cacheTtlMs: 5_000 });
    await basic.authenticate('acme', 'alice', 'wonder:land');
    now += 4_999;
    await basic.authenticate('acme', 'alice', 'wonder:land');
    expect(exchange.requests).toHaveLength(1);
    now += 1;
    await basic.authenticate('acme', 'alice', 'wonder:land');
    expect(exchange.requests).toHaveLength(2);
  });

  it('keeps a cached answer no longer than ten seconds short of the token expiry', async () => {
    exchange.ttlSeconds = 30;
    const basic = authenticator({ cacheTtlMs: 60_000 });
    await basic.authenticate('acme', 'alice', 'wonder:land');
    now += 19_999;
    await basic.authenticate('acme', 'alice', 'wonder:land');
    expect(exchange.requests).toHaveLength(1);
    now += 1;
    await basic.authenticate('acme', 'alice', 'wonder:land');
    expect(exchange.requests).toHaveLength(2);
  });

  it('forgets the oldest credentials when the cache is full', async () => {
    const basic = authenticator({ maxCacheEntries: 1 });
    await basic.authenticate('acme', 'alice', 'wonder:land');
    await basic.authenticate('acme', 'bob', 'builder');
    await basic.authenticate('acme', 'bob', 'builder');
    expect(exchange.requests).toHaveLength(2);
    await basic.authenticate('acme', 'alice', 'wonder:land');
    expect(exchange.requests).toHaveLength(3);
  });

  it('shares one exchange round trip between concurrent identical requests', async () => {
    const basic = authenticator();
    const principals = await Promise.all(
      [1, 2, 3, 4].map(() => basic.authenticate('acme', 'alice', 'wonder:land')),
    );
    expect(new Set(principals.map((principal) => principal.kind))).toEqual(new Set(['user']));
    expect(exchange.requests).toHaveLength(1);
  });

  it('reports a 503 from the exchange as unavailable, not as wrong credentials, and caches nothing', async () => {
    exchange.mode = 'unavailable';
    const basic = authenticator();
    const error = await rejection(basic.authenticate('acme', 'alice', 'wonder:land'));
    expect(error).toBeInstanceOf(AuthServiceUnavailableError);
    expect(error).toMatchObject({ code: AuthErrorCode.AuthServiceUnavailable });
    exchange.mode = 'normal';
    await expect(basic.authenticate('acme', 'alice', 'wonder:land')).resolves.toMatchObject({
      username: 'alice',
    });
  });

  it('reports an exchange that does not answer in time as unavailable', async () => {
    exchange.mode = 'hang';
    await expect(
      authenticator({ timeoutMs: 100 }).authenticate('acme', 'alice', 'wonder:land'),
    ).rejects.toBeInstanceOf(AuthServiceUnavailableError);
  });

  it('reports an unexpected token response as unavailable', async () => {
    exchange.mode = 'garbage';
    await expect(authenticator().authenticate('acme', 'alice', 'wonder:land')).rejects.toBeInstanceOf(
      AuthServiceUnavailableError,
    );
  });

  it('reports an unreachable exchange as unavailable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const basic = new ExchangeBasicAuthenticator(new URL(`http://127.0.0.1:${port}`), exchange.verifier);
    await expect(basic.authenticate('acme', 'alice', 'wonder:land')).rejects.toBeInstanceOf(
      AuthServiceUnavailableError,
    );
  });

  it('accepts an exchange URL with a trailing slash', async () => {
    const basic = new ExchangeBasicAuthenticator(new URL(`${exchange.url.href}`), exchange.verifier);
    expect(exchange.url.href.endsWith('/')).toBe(true);
    await expect(basic.authenticate('acme', 'bob', 'builder')).resolves.toMatchObject({ username: 'bob' });
  });
});
