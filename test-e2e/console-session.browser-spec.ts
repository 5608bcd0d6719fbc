/**
 * The console staying signed in past its access tokens: an exchange issuing tokens that last
 * two seconds, the console's server in front of it, and a real Chromium signed in. The console
 * renews the token ahead of each expiry and goes on reading; signing out ends the login on the
 * exchange, whose refresh token is refused from then on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { createConsoleServer } from '@careen/console/src/console-server';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import { bearer, eventually, http, seedExchange, useTestInfra } from '@careen/testing';
import { launchChromium } from './support/chromium';
import { buildConsole } from './support/console-files';

jest.setTimeout(240_000);

describe('a console sign-in outliving its access tokens', () => {
  const infra = useTestInfra();
  let exchange: { url: string; close(): Promise<void> };
  let server: Server;
  let browser: Browser;
  let consoleUrl: string;
  let files: string;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
      CAREEN_TOKEN_TTL_SECONDS: '2',
    });
    await seedExchange(exchange.url, { acme: { users: { ada: 'orgAdmin' }, nodes: ['edge-1'] } });
    files = mkdtempSync(join(tmpdir(), 'careen-console-files-'));
    server = createConsoleServer({ root: buildConsole(files), upstreams: { exchange: exchange.url } });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    consoleUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((closed) => server?.close(closed));
    await exchange?.close();
    rmSync(files, { recursive: true, force: true });
  });

  it('stays signed in past several access tokens, and signing out ends the login', async () => {
    const page = await browser.newPage();
    const accessTokens: string[] = [];
    const refreshTokens: string[] = [];
    page.on('response', async (response) => {
      if (!/\/exchange\/v1\/auth\/token(\/refresh)?$/.test(response.url()) || !response.ok()) return;
      const body = (await response.json()) as { accessToken: string; refreshToken: string };
      accessTokens.push(body.accessToken);
      refreshTokens.push(body.refreshToken);
    });
    await page.goto(consoleUrl);
    await page.getByLabel('Org', { exact: true }).fill('acme');
    await page.getByLabel('User', { exact: true }).fill('ada');
    await page.getByLabel('Password', { exact: true }).fill('ada-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();

    // Renewed again and again; the token of the sign-in itself is long refused by now.
    await eventually(
      async () => {
        expect(refreshTokens.length).toBeGreaterThanOrEqual(5);
        const [signInToken] = accessTokens;
        if (signInToken === undefined) throw new Error('no access token was seen');
        const first = await http(exchange.url, 'GET', '/v1/whoami', { auth: bearer(signInToken) });
        expect(first.status).toBe(401);
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    // Still signed in, and what it reads now comes with a live token.
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(0);
    const read = page.waitForResponse((response) => response.url().includes('/exchange/v1/orgs/acme/'));
    await page.getByRole('link', { name: 'HA groups' }).click();
    await page.getByRole('heading', { name: 'HA groups' }).waitFor();
    expect((await read).status()).toBe(200);

    const revoked = page.waitForResponse((response) =>
      response.url().endsWith('/exchange/v1/auth/token/revoke'),
    );
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    expect((await revoked).status()).toBe(204);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    const refused = await http(exchange.url, 'POST', '/v1/auth/token/refresh', {
      body: { refreshToken: refreshTokens[refreshTokens.length - 1] },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('refresh token revoked: the login was ended');
    await page.close();
  });
});
