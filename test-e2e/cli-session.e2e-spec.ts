/**
 * A `careen` login outliving its access tokens: the exchange issues tokens lasting two seconds,
 * and `careen nmp watch`, run as its own process from a temporary folder, keeps reading the
 * rollout well past several of them, renewing with the refresh token as it goes, until the
 * rollout ends. Logging out ends the login on the exchange; a copy of the login kept elsewhere
 * is then refused with the way out. `careen login` given another service's URL names it.
 */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { createConsoleServer } from '@careen/console/src/console-server';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import {
  bearer,
  eventually,
  http,
  seedExchange,
  seededNode,
  seededRoot,
  useTestInfra,
} from '@careen/testing';
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CAREEN = resolve(__dirname, '..', 'tools', 'launcher', 'careen.js');
const TOKEN_TTL_SECONDS = 2;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface StoredLogin {
  accessToken: string;
  refreshToken: string;
}

describe('a careen login outliving its access tokens', () => {
  const infra = useTestInfra();
  let exchange: { url: string; close(): Promise<void> };
  let agbot: { url: string; close(): Promise<void> };
  let workDir: string;

  /** `careen …` as its own process in a temporary folder; `running` settles when it exits. */
  const start = (args: string[], configDir: string, stdin = '') => {
    let stdout = '';
    let stderr = '';
    const child = spawn(process.execPath, [CAREEN, ...args], {
      cwd: workDir,
      env: { PATH: process.env.PATH, HOME: workDir, CAREEN_CONFIG_DIR: configDir },
    });
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin);
    const running = new Promise<Run>((settle) =>
      child.on('close', (code) => settle({ code, stdout, stderr })),
    );
    return { child, running, output: () => stdout + stderr };
  };
  const careen = (args: string[], configDir: string, stdin?: string) => start(args, configDir, stdin).running;
  const login = (configDir: string, url = exchange.url) =>
    careen(
      ['login', '--exchange', url, '--org', 'acme', '--user', 'ada', '--password-stdin'],
      configDir,
      'ada-password',
    );
  const stored = async (configDir: string) =>
    JSON.parse(await readFile(join(configDir, 'config.json'), 'utf8')) as StoredLogin;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
      CAREEN_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS),
    });
    await seedExchange(exchange.url, { acme: { users: { ada: 'orgAdmin' }, nodes: ['edge-1'] } });
    const policy = await http(exchange.url, 'PUT', '/v1/orgs/acme/management-policies/upgrade', {
      auth: seededRoot,
      body: { nodes: ['edge-1'], enabled: true },
    });
    expect(policy.status).toBeLessThan(300);
    agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: 'root-password-1',
    });
    workDir = await mkdtemp(join(tmpdir(), 'careen-session-'));
  });

  afterAll(async () => {
    await agbot?.close();
    await exchange?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('keeps a watch working past several access tokens, then logs out for good', async () => {
    const configDir = join(workDir, 'watching');
    expect(await login(configDir)).toMatchObject({ code: 0 });
    const first = await stored(configDir);

    const watch = start(['nmp', 'watch', 'upgrade', '--interval', '0.5'], configDir);
    const seen = new Set<string>([first.refreshToken]);
    // Renewed again and again while it watches, the first token long dead.
    await eventually(
      async () => {
        seen.add((await stored(configDir)).refreshToken);
        expect(seen.size).toBeGreaterThanOrEqual(5);
        expect(
          (await http(exchange.url, 'GET', '/v1/whoami', { auth: bearer(first.accessToken) })).status,
        ).toBe(401);
      },
      { timeoutMs: 40_000, intervalMs: 200 },
    );
    expect(watch.output()).not.toContain('error');

    // The node finishes: the watch, still reading, sees it and ends.
    const done = await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/edge-1/managementStatus/upgrade', {
      auth: seededNode('acme', 'edge-1'),
      body: { status: 'successful' },
    });
    expect(done.status).toBe(200);
    const watched = await watch.running;
    expect(watched).toMatchObject({ code: 0, stderr: '' });

    const last = await stored(configDir);
    expect(await careen(['logout'], configDir)).toMatchObject({ code: 0, stderr: '' });
    const refused = await http(exchange.url, 'POST', '/v1/auth/token/refresh', {
      body: { refreshToken: last.refreshToken },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('refresh token revoked: the login was ended');
  }, 90_000);

  it('tells a command holding a login ended elsewhere to log in again', async () => {
    const configDir = join(workDir, 'ended');
    const copy = join(workDir, 'copy');
    expect(await login(configDir)).toMatchObject({ code: 0 });
    await cp(configDir, copy, { recursive: true });
    expect(await careen(['logout'], configDir)).toMatchObject({ code: 0 });

    // Once the copy's access token is due for renewal, the exchange refuses to renew it.
    const refused = await eventually(
      async () => {
        const run = await careen(['org', 'show'], copy);
        expect(run.code).toBe(1);
        return run;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(refused.stderr).toBe(
      `error: the exchange ended your login as acme/ada to ${exchange.url} (refresh token revoked: the login was ended): run "careen login" to log in again\n`,
    );
  });

  it("names the agbot when given the agbot's URL to log in to", async () => {
    const run = await login(join(workDir, 'agbot'), agbot.url);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe(
      `error: ${agbot.url} is not an exchange: the Careen agbot answered (POST /v1/auth/token: 404 Not Found); pass the exchange's URL with --exchange\n`,
    );
  });

  it("names the console when given the console's URL, and where it passes the exchange on", async () => {
    const root = join(workDir, 'console-files');
    await mkdir(root);
    await writeFile(join(root, 'index.html'), '<!doctype html><title>console</title>');
    const server: Server = createConsoleServer({ root, upstreams: { exchange: exchange.url } });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const run = await login(join(workDir, 'console'), url);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toBe(
        `error: ${url} is not an exchange: the Careen console answered (POST /v1/auth/token: 405 Method Not Allowed); pass the exchange's URL with --exchange\n` +
          `  the console passes the exchange's API on under /exchange: --exchange ${url}/exchange\n`,
      );
      expect(await login(join(workDir, 'console'), `${url}/exchange`)).toMatchObject({ code: 0 });
    } finally {
      await new Promise((closed) => server.close(closed));
    }
  });
});
