import { basic, bearer, eventually, http, useTestInfra } from '@careen/testing';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);
/** Short enough that a test outlives several access tokens. */
const TOKEN_TTL_SECONDS = 2;

describe('refresh tokens', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS),
    });
    await http(exchange.url, 'POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await http(exchange.url, 'POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'ada', password: 'ada-password', role: 'orgAdmin' },
    });
  });

  afterAll(() => exchange.close());

  const login = async () => {
    const answer = await http(exchange.url, 'POST', '/v1/auth/token', {
      body: { org: 'acme', username: 'ada', password: 'ada-password' },
    });
    expect(answer.status).toBe(200);
    return answer.body as { accessToken: string; refreshToken: string; refreshExpiresIn: number };
  };
  const refresh = (refreshToken: unknown) =>
    http(exchange.url, 'POST', '/v1/auth/token/refresh', { body: { refreshToken } });
  const revoke = (refreshToken: unknown) =>
    http(exchange.url, 'POST', '/v1/auth/token/revoke', { body: { refreshToken } });
  const whoami = (accessToken: string) =>
    http(exchange.url, 'GET', '/v1/whoami', { auth: bearer(accessToken) });

  it("gives a user's login a refresh token lasting the configured login time", async () => {
    const tokens = await login();
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.refreshExpiresIn).toBeGreaterThan(43_000);
    expect(tokens.refreshExpiresIn).toBeLessThanOrEqual(43_200);
  });

  it('keeps a login working past several access token lifetimes, each refresh token used once', async () => {
    const first = await login();
    let refreshToken = first.refreshToken;
    let accessToken = first.accessToken;
    const until = Date.now() + 4 * TOKEN_TTL_SECONDS * 1000;
    // The first access token is refused once it has expired (past the verifier's clock tolerance)...
    await eventually(async () => expect((await whoami(first.accessToken)).status).toBe(401), {
      timeoutMs: 15_000,
      intervalMs: 500,
    });
    // ...while renewing keeps one that works, however long the login is used.
    while (Date.now() < until || accessToken === first.accessToken) {
      const renewed = await refresh(refreshToken);
      expect(renewed.status).toBe(200);
      expect(renewed.body.refreshToken).not.toBe(refreshToken);
      ({ accessToken, refreshToken } = renewed.body as { accessToken: string; refreshToken: string });
      expect((await whoami(accessToken)).body).toMatchObject({ org: 'acme', username: 'ada' });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const reused = await refresh(first.refreshToken);
    expect(reused.status).toBe(401);
    expect(reused.body.message).toContain('refresh token already used');
  });

  it('refuses every token of a login once it is revoked, and says so', async () => {
    const { refreshToken } = await login();
    const renewed = await refresh(refreshToken);
    expect(renewed.status).toBe(200);

    expect((await revoke(renewed.body.refreshToken)).status).toBe(204);
    for (const token of [renewed.body.refreshToken, refreshToken]) {
      const refused = await refresh(token);
      expect(refused.status).toBe(401);
      expect(refused.body.message).toBe('refresh token revoked: the login was ended');
    }
    // Another login of the same user is left alone.
    expect((await refresh((await login()).refreshToken)).status).toBe(200);
  });

  it('refuses an unknown refresh token with 401, and revokes it quietly', async () => {
    const refused = await refresh('no-such-refresh-token');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({
      message: 'unknown refresh token',
      details: { code: 'INVALID_TOKEN' },
    });
    expect((await revoke('no-such-refresh-token')).status).toBe(204);
  });

  it.each([
    ['missing', undefined],
    ['not a string', 42],
    ['empty', ''],
    ['too long', 'x'.repeat(257)],
  ])('refuses a refresh token that is %s with 400 naming it', async (_what, value) => {
    for (const answer of [await refresh(value), await revoke(value)]) {
      expect(answer.status).toBe(400);
      expect(answer.body.details.fields.map((field: { field: string }) => field.field)).toEqual([
        'refreshToken',
      ]);
    }
  });

  it('gives nodes no refresh token: they hold a lasting token of their own', async () => {
    await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/n1', {
      auth: root,
      body: { token: 'n1-token-0123456789' },
    });
    const answer = await http(exchange.url, 'POST', '/v1/auth/token', {
      body: { org: 'acme', node: 'n1', token: 'n1-token-0123456789' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.refreshToken).toBeUndefined();
  });
});
