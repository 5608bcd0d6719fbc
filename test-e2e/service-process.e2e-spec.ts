/** A hub service run as its own process, the way the launcher and Kubernetes run it. */
import { freePort } from '@careen/devstack';
import { eventually, http, useTestInfra } from '@careen/testing';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const repoRoot = resolve(__dirname, '..');

function runApp(app: string, env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [resolve(repoRoot, 'tools/launcher/run-app.js'), app, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  return { child, exited, output: () => output };
}

describe('a hub service process', () => {
  const infra = useTestInfra();

  it('migrates, serves until SIGTERM, then drains and exits 0', async () => {
    const port = await freePort();
    const env = {
      CAREEN_DATABASE_URL: infra.databaseUrl,
      CAREEN_NATS_URL: infra.natsUrl,
      CAREEN_EXCHANGE_PORT: String(port),
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    };
    const exchange = runApp('exchange', env);
    const url = `http://127.0.0.1:${port}`;
    await eventually(async () => expect((await http(url, 'GET', '/readyz')).status).toBe(200), {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    expect((await http(url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await http(url, 'GET', '/metrics')).body).toContain('careen_http_request_duration_seconds');
    expect((await http(url, 'GET', '/docs/openapi.json')).body.paths['/v1/orgs']).toBeDefined();

    exchange.child.kill('SIGTERM');

    expect(await exchange.exited).toBe(0);
    expect(exchange.output()).toContain('exchange stopped');
  });

  it('runs only its migrations with `migrate` and exits 0', async () => {
    const migrate = runApp(
      'agbot',
      {
        CAREEN_DATABASE_URL: infra.databaseUrl,
        CAREEN_NATS_URL: infra.natsUrl,
        CAREEN_EXCHANGE_URL: 'http://127.0.0.1:1',
      },
      ['migrate'],
    );
    expect(await migrate.exited).toBe(0);
    expect(migrate.output()).toContain('migrations applied');
  });

  it('refuses to start with exit 78 naming every bad variable, without a stack trace', async () => {
    const bad = runApp('notifier', {
      CAREEN_DATABASE_URL: 'mysql://nope',
      CAREEN_NATS_URL: infra.natsUrl,
      CAREEN_NOTIFIER_PORT: 'eighty',
    });
    expect(await bad.exited).toBe(78);
    expect(bad.output()).toContain('CAREEN_DATABASE_URL');
    expect(bad.output()).toContain('CAREEN_EXCHANGE_URL is missing');
    expect(bad.output()).toContain('CAREEN_NOTIFIER_PORT');
    expect(bad.output()).not.toContain('mysql://nope');
    expect(bad.output()).not.toContain('    at ');
  });
});
