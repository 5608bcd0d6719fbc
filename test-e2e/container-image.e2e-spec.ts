/**
 * The container image's contents, proven without a container engine: the hub services are
 * compiled as the Dockerfile's build stage compiles them and laid out as its last stage lays
 * them out (the compiled apps and the healthcheck in one folder, the dependencies' node_modules
 * above it), migrated with the command of their Kubernetes migration Jobs, then started with the
 * image's own CMD and asked with its own HEALTHCHECK, against the test's Postgres and JetStream.
 */
import { freePort, stopChild } from '@careen/devstack';
import { eventually, useTestInfra } from '@careen/testing';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const REPO_ROOT = resolve(__dirname, '..');
const ROOT_PASSWORD = 'root-password-1';
const SERVICES = ['exchange', 'agbot', 'maintenance-session', 'deployment-orchestrator', 'notifier'];
const run = promisify(execFile);

/** The instructions of the Dockerfile's last stage, in order: `[instruction, rest of the line]`. */
function finalStage(): [string, string][] {
  const lines = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .map((line): [string, string] => {
      const [instruction, ...rest] = line.trim().split(/\s+/);
      return [instruction!.toUpperCase(), rest.join(' ')];
    });
  const from = lines.map(([instruction]) => instruction).lastIndexOf('FROM');
  return lines.slice(from);
}

/** The exec form of an instruction, `["node", "healthcheck.js"]`, as an argv. */
function execForm(text: string): string[] {
  return JSON.parse(text.slice(text.indexOf('['))) as string[];
}

const portVariable = (app: string) => `CAREEN_${app.toUpperCase().replace(/-/g, '_')}_PORT`;

describe('the container image', () => {
  const infra = useTestInfra();
  const stage = finalStage();
  // Under the checkout, as the image's dist/ is under /app: node_modules is found above it.
  mkdirSync(join(REPO_ROOT, '.careen'), { recursive: true });
  const root = mkdtempSync(join(REPO_ROOT, '.careen', 'image-'));
  const running = new Map<string, ChildProcess>();

  afterAll(async () => {
    for (const child of running.values()) await stopChild(child);
    rmSync(root, { recursive: true, force: true });
  });

  it('runs as node from a pinned Node base, with a healthcheck', () => {
    const instructions = Object.fromEntries(stage);
    expect(instructions.FROM).toBe('${NODE_IMAGE}');
    expect(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8')).toMatch(
      /^ARG NODE_IMAGE=node:\d+\.\d+\.\d+-bookworm-slim$/m,
    );
    expect(instructions.USER).toBe('node');
    expect(instructions.HEALTHCHECK).toMatch(/CMD \[/);
  });

  it('starts every hub service compiled, healthy, and stops it cleanly', async () => {
    const workdir = Object.fromEntries(stage).WORKDIR!;
    const cmd = execForm(stage.find(([instruction]) => instruction === 'CMD')![1]);
    const healthcheck = execForm(stage.find(([instruction]) => instruction === 'HEALTHCHECK')![1]);
    const atWorkdir = (path: string) => path.replace(new RegExp(`^${workdir}/`), '');

    const ports = new Map<string, number>();
    for (const app of SERVICES) ports.set(app, await freePort());
    const url = (app: string) => `http://127.0.0.1:${ports.get(app)}`;
    const settings: Record<string, Record<string, string>> = {
      exchange: { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD },
      agbot: { CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD },
      'maintenance-session': {
        CAREEN_AGBOT_URL: url('agbot'),
        CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      },
      'deployment-orchestrator': { CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD: ROOT_PASSWORD },
      notifier: { CAREEN_NOTIFIER_EXCHANGE_PASSWORD: ROOT_PASSWORD },
    };
    const envOf = (app: string): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      APP: app,
      CAREEN_DATABASE_URL: infra.databaseUrl,
      CAREEN_NATS_URL: infra.natsUrl,
      CAREEN_EXCHANGE_URL: url('exchange'),
      CAREEN_LOG_LEVEL: 'error',
      [portVariable(app)]: String(ports.get(app)),
      ...settings[app],
    });

    // The last stage's own files (COPY without --from).
    for (const [instruction, rest] of stage) {
      const [source, target] = rest.split(/\s+/);
      if (instruction === 'COPY' && !source!.startsWith('--from')) {
        mkdirSync(join(root, target!, '..'), { recursive: true });
        copyFileSync(join(REPO_ROOT, source!), join(root, target!));
      }
    }
    // Per app, the build stage (npm run build, which compiles dist/<app>), then its migration
    // Job's command, run where the image runs it. The apps go side by side, as the Jobs do in
    // Kubernetes: each service migrates a schema of its own.
    const dist = join(root, 'dist');
    const migrate = async (app: string) => {
      await run(process.execPath, [join(REPO_ROOT, 'tools', 'build', 'build-app.js'), app, '--out', dist]);
      const job = parse(
        readFileSync(
          join(REPO_ROOT, 'deploy', 'kubernetes', 'base', 'migrations', `${app}-migrate.yaml`),
          'utf8',
        ),
      ) as { spec: { template: { spec: { containers: { command: string[] }[] } } } };
      const [command, ...args] = job.spec.template.spec.containers[0]!.command;
      return run(command!, args.map(atWorkdir), { cwd: root, env: envOf(app) });
    };
    await expect(Promise.all(SERVICES.map(migrate))).resolves.toHaveLength(SERVICES.length);

    const readyz = async (app: string) =>
      (await fetch(`${url(app)}/readyz`).catch(() => undefined))?.status ?? 'unreachable';
    for (const app of SERVICES) {
      const [command, ...args] = cmd;
      const child = spawn(command!, args, {
        cwd: root,
        env: envOf(app),
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      running.set(app, child);
      // The exchange first: the others check their credentials with it as they start.
      if (app === 'exchange')
        await eventually(async () => expect(await readyz(app)).toBe(200), { timeoutMs: 60_000 });
    }
    await eventually(
      async () => expect(await Promise.all(SERVICES.map(readyz))).toEqual(SERVICES.map(() => 200)),
      { timeoutMs: 60_000 },
    );

    const check = async (app: string) => {
      const [command, ...args] = healthcheck;
      const child = spawn(command!, args, { cwd: root, env: envOf(app), stdio: 'ignore' });
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    };
    expect(await Promise.all(SERVICES.map(check))).toEqual(SERVICES.map(() => 0));

    const exits = [];
    for (const app of [...SERVICES].reverse()) {
      const child = running.get(app)!;
      child.kill('SIGTERM');
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      running.delete(app);
      exits.push({ app, code, signal });
    }
    expect(exits).toEqual([...SERVICES].reverse().map((app) => ({ app, code: 0, signal: null })));
    // A service that is gone is unhealthy.
    expect(await check('exchange')).toBe(1);
  });

  it('serves the web console compiled, healthy, and stops it cleanly', async () => {
    // The console's build target: its server compiled like the services, the app built by Vite beside it.
    const dist = join(root, 'dist');
    await run(process.execPath, [
      join(REPO_ROOT, 'tools', 'build', 'build-app.js'),
      'console',
      '--out',
      dist,
    ]);
    await run(process.execPath, [
      join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      join(REPO_ROOT, 'apps', 'console', 'web', 'vite.config.mjs'),
      '--outDir',
      join(dist, 'console', 'public'),
      '--logLevel',
      'warn',
    ]);
    // The image's HEALTHCHECK script, where the last stage copies it (beside dist/).
    copyFileSync(join(REPO_ROOT, 'tools', 'container', 'healthcheck.js'), join(root, 'healthcheck.js'));
    const port = await freePort();
    const env = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      APP: 'console',
      CAREEN_CONSOLE_PORT: String(port),
    };
    const [command, ...args] = execForm(stage.find(([instruction]) => instruction === 'CMD')![1]);
    const child = spawn(command!, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
    running.set('console', child);
    const page = await eventually(
      async () => {
        const answer = await fetch(`http://127.0.0.1:${port}/`);
        expect(answer.status).toBe(200);
        return answer.text();
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(page).toContain('<title>Careen console</title>');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page)![1]!;
    const asset = await fetch(`http://127.0.0.1:${port}${script}`);
    expect([asset.status, asset.headers.get('content-type')]).toEqual([
      200,
      'text/javascript; charset=utf-8',
    ]);
    // Behind the Ingress nothing is passed on from here: an API path says where to route it.
    expect((await fetch(`http://127.0.0.1:${port}/exchange/v1/orgs`)).status).toBe(502);

    const [checkCommand, ...checkArgs] = execForm(
      stage.find(([instruction]) => instruction === 'HEALTHCHECK')![1],
    );
    const check = spawn(checkCommand!, checkArgs, { cwd: root, env, stdio: 'ignore' });
    expect((await once(check, 'exit'))[0]).toBe(0);
    child.kill('SIGTERM');
    expect(await once(child, 'exit')).toEqual([0, null]);
    running.delete('console');
  });
});
