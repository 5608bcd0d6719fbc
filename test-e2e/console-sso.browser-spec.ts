/**
 * The console's single sign-on in a real Chromium, against a real OpenID provider run by the
 * harness: the person gives only the org, signs in at the provider's page, and lands in the
 * console with the role their groups map to (authorization code with PKCE, the code redeemed by
 * the exchange). Someone in no mapped group is told so on the sign-in page; someone taken out
 * of their groups while signed in is signed out at the console's next renewal, with the reason.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { createConsoleServer } from '@careen/console/src/console-server';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import {
  http,
  seededUser,
  seedExchange,
  startTestIdentityProvider,
  useTestInfra,
  type TestIdentityProvider,
} from '@careen/testing';
import { launchChromium } from './support/chromium';
import { buildConsole } from './support/console-files';

jest.setTimeout(240_000);

const SCREENSHOTS = process.env.CAREEN_WRITE_SCREENSHOTS
  ? join(resolve(__dirname, '..'), 'docs', 'screenshots')
  : join(resolve(__dirname, '..'), '.careen', 'screenshots');

describe("the console's single sign-on", () => {
  const infra = useTestInfra();
  let exchange: { url: string; close(): Promise<void> };
  let idp: TestIdentityProvider;
  let server: Server;
  let browser: Browser;
  let consoleUrl: string;
  let files: string;

  /** From the console's sign-in page through the provider's, as `account`. */
  const signInThroughProvider = async (page: Page, account: string) => {
    await page.goto(consoleUrl);
    await page.getByLabel('Org', { exact: true }).fill('acme');
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
    await page.getByLabel('Account').fill(account);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
      CAREEN_SSO_ALLOW_HTTP: 'true',
      // Short access tokens: the console renews often, and each renewal asks the provider.
      CAREEN_TOKEN_TTL_SECONDS: '4',
    });
    await seedExchange(exchange.url, { acme: { users: { ada: 'orgAdmin' }, nodes: ['edge-1'] } });
    files = mkdtempSync(join(tmpdir(), 'careen-console-files-'));
    server = createConsoleServer({ root: buildConsole(files), upstreams: { exchange: exchange.url } });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    consoleUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    idp = await startTestIdentityProvider([
      { client_id: 'careen-console', redirect_uris: [`${consoleUrl}/`] },
    ]);
    const configured = await http(exchange.url, 'PUT', '/v1/orgs/acme/identity-provider', {
      auth: seededUser('acme', 'ada'),
      body: {
        issuer: idp.issuer,
        clientId: 'careen-console',
        scopes: ['openid', 'profile', 'groups'],
        roleMappings: [{ group: 'ops', role: 'operator' }],
      },
    });
    expect(configured.status).toBe(200);
    await Promise.all([idp.setGroups('alice', ['ops']), idp.setGroups('carol', ['sales'])]);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((closed) => server?.close(closed));
    await idp?.close();
    await exchange?.close();
    rmSync(files, { recursive: true, force: true });
  });

  it('signs a person in through the provider, as the role their groups give', async () => {
    const page = await browser.newPage();
    await signInThroughProvider(page, 'alice');
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    await page.getByText('alice (operator)').waitFor();
    // The code left the address bar.
    expect(new URL(page.url()).search).toBe('');
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in-sso.png'), fullPage: true });

    // Out of every mapped group: the next renewal signs the console out, saying why.
    await idp.setGroups('alice', ['sales']);
    await page
      .getByRole('status')
      .filter({ hasText: 'alice is in none of the groups that give a role in org "acme"' })
      .waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).waitFor();
    await page.close();
  });

  it('tells someone in no mapped group why they cannot sign in', async () => {
    const page = await browser.newPage();
    await signInThroughProvider(page, 'carol');
    await page.getByRole('alert').filter({ hasText: 'carol is in none of the groups' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'sales' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in-sso-refused.png'), fullPage: true });
    await page.close();
  });

  it('says so when the org has no single sign-on', async () => {
    const page = await browser.newPage();
    await page.goto(consoleUrl);
    await page.getByLabel('Org', { exact: true }).fill('root');
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'org "root" has no single sign-on configured' })
      .waitFor();
    await page.close();
  });
});
