/**
 * A token issued by the exchange is checked by another service on its own, through the
 * exchange's JWKS; Basic credentials work there too, traded at the exchange.
 */
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import {
  CAREEN_TOKEN_AUDIENCE,
  CAREEN_TOKEN_ISSUER,
  generateSigningKey,
  TokenIssuer,
  type SigningKeyMaterial,
} from '@careen/auth';
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { basic, bearer, http, useTestInfra, withClient } from '@careen/testing';
import { startServiceInProcess, type InProcessService } from '@careen/service';

describe('credentials across services', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let agbot: InProcessService<AgbotConfig>;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    });
    agbot = await startServiceInProcess(agbotService, infra, { CAREEN_EXCHANGE_URL: exchange.url });
    await http(exchange.url, 'POST', '/v1/orgs', {
      auth: basic('root', 'root', 'root-password-1'),
      body: { id: 'acme' },
    });
    await http(exchange.url, 'POST', '/v1/orgs/acme/users', {
      auth: basic('root', 'root', 'root-password-1'),
      body: { username: 'ada', password: 'ada-password', role: 'orgAdmin' },
    });
  });

  afterAll(async () => {
    await agbot.close();
    await exchange.close();
  });

  async function exchangeSigningKey(): Promise<SigningKeyMaterial> {
    const rows = await withClient(infra.databaseUrl, (client) =>
      client.query(
        'SELECT kid, private_jwk, public_jwk FROM exchange.signing_keys ORDER BY created_at DESC LIMIT 1',
      ),
    );
    const row = rows.rows[0] as {
      kid: string;
      private_jwk: SigningKeyMaterial['privateJwk'];
      public_jwk: SigningKeyMaterial['publicJwk'];
    };
    return { kid: row.kid, privateJwk: row.private_jwk, publicJwk: row.public_jwk };
  }

  it('accepts a token issued by the exchange', async () => {
    const token = await http(exchange.url, 'POST', '/v1/auth/token', {
      body: { org: 'acme', username: 'ada', password: 'ada-password' },
    });
    const me = await http(agbot.url, 'GET', '/v1/whoami', { auth: bearer(token.body.accessToken) });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ kind: 'user', org: 'acme', username: 'ada', role: 'orgAdmin' });
  });

  it('accepts Basic credentials by trading them at the exchange', async () => {
    const me = await http(agbot.url, 'GET', '/v1/whoami', { auth: basic('acme', 'ada', 'ada-password') });
    expect(me.body).toMatchObject({ org: 'acme', username: 'ada' });
    const wrong = await http(agbot.url, 'GET', '/v1/whoami', {
      auth: basic('acme', 'ada', 'not-her-password'),
    });
    expect(wrong.status).toBe(401);
  });

  it('refuses an expired token with 401', async () => {
    const issuedAnHourAgo = new TokenIssuer(await exchangeSigningKey(), {
      issuer: CAREEN_TOKEN_ISSUER,
      audience: CAREEN_TOKEN_AUDIENCE,
      ttlSeconds: 60,
      clock: () => new Date(Date.now() - 3_600_000),
    });
    const { accessToken } = await issuedAnHourAgo.issue({
      kind: 'user',
      org: 'acme',
      username: 'ada',
      role: 'orgAdmin',
    });
    const response = await http(agbot.url, 'GET', '/v1/whoami', { auth: bearer(accessToken) });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe('token expired');
  });

  it('refuses a forged token signed by another key under the same kid with 401', async () => {
    const real = await exchangeSigningKey();
    const forger = await generateSigningKey();
    const forged = new TokenIssuer(
      { ...forger, kid: real.kid },
      { issuer: CAREEN_TOKEN_ISSUER, audience: CAREEN_TOKEN_AUDIENCE, ttlSeconds: 600 },
    );
    const { accessToken } = await forged.issue({
      kind: 'user',
      org: 'root',
      username: 'root',
      role: 'hubAdmin',
    });
    const response = await http(agbot.url, 'GET', '/v1/whoami', { auth: bearer(accessToken) });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe('invalid token');
  });
});
