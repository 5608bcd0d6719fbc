/**
 * `npm start` as a user runs it: the launcher brings up Postgres, NATS, every hub service
 * whose sources exist and the demo fleet of simulated agents (registered in their HA groups
 * and reporting their status), reports ready, and on SIGTERM stops all of it and exits 0.
 */
import { connect as connectNats } from '@nats-io/transport-node';
import { type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort, HUB_SERVICES as ALL_HUB_SERVICES } from '@careen/devstack';
import { eventually } from '@careen/testing';
import {
  accepts,
  demoOfSummary,
  exitOf,
  spawnLauncher,
  stopLauncher,
  untilOutputContains,
  launcherHome,
} from './support/launcher-process';

const REPO_ROOT = resolve(__dirname, '..');
const READY_LINE = 'Careen is ready.';
const ROOT_PASSWORD = 'launcher-root-password';
const DEMO_NODES = 6;
const DEMO_GROUPS = 2;
/** The hub services whose sources this checkout has, as the launcher runs them. */
const HUB_SERVICES = ALL_HUB_SERVICES.filter((service) =>
  existsSync(join(REPO_ROOT, 'apps', service.name, 'src', 'main.ts')),
);

jest.setTimeout(240_000);

describe('npm start', () => {
  let home: string;
  let launcher: ChildProcess | undefined;
  let output = () => '';
  const ports = new Map<string, number>();

  beforeAll(async () => {
    home = launcherHome('launcher');
    for (const envVar of [
      'CAREEN_PG_PORT',
      'CAREEN_NATS_PORT',
      'CAREEN_CONSOLE_PORT',
      ...HUB_SERVICES.map((s) => s.portEnv),
    ]) {
      ports.set(envVar, await freePort());
    }
  });

  afterAll(async () => {
    await stopLauncher(launcher);
    rmSync(home, { recursive: true, force: true });
  });

  it('starts every hub service and the demo fleet, answers health checks, and stops everything on SIGTERM with exit 0', async () => {
    const env: NodeJS.ProcessEnv = {
      CAREEN_HOME: home,
      CAREEN_LOG_LEVEL: 'warn',
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_DEMO_NODES: String(DEMO_NODES),
      CAREEN_DEMO_GROUPS: String(DEMO_GROUPS),
    };
    for (const [envVar, port] of ports) env[envVar] = String(port);
    const started = spawnLauncher([], env);
    const child = started.child;
    launcher = child;
    output = started.output;

    await untilOutputContains(child, READY_LINE, 180_000, output);

    const statuses = await Promise.all(
      HUB_SERVICES.map(async (service) => {
        const base = `http://127.0.0.1:${ports.get(service.portEnv)}`;
        const [healthz, readyz] = await Promise.all([fetch(`${base}/healthz`), fetch(`${base}/readyz`)]);
        return { service: service.name, healthz: healthz.status, readyz: readyz.status };
      }),
    );
    expect(statuses).toEqual(
      HUB_SERVICES.map((service) => ({ service: service.name, healthz: 200, readyz: 200 })),
    );
    expect(await accepts(ports.get('CAREEN_PG_PORT') as number)).toBe(true);
    expect(await accepts(ports.get('CAREEN_NATS_PORT') as number)).toBe(true);
    // The bus enforces JWT authorization: a client without the services' creds is refused.
    await expect(
      connectNats({ servers: `nats://127.0.0.1:${ports.get('CAREEN_NATS_PORT')}`, reconnect: false }),
    ).rejects.toThrow(/Authorization/i);
    expect(output()).toMatch(/NATS .*JWT authorization; services' creds \S+services\.creds/);

    // The demo fleet: its nodes are registered in their groups and report version 1.0.0.
    expect(output()).toContain(
      `Demo fleet  ${DEMO_NODES} simulated agents demo-0001 … demo-000${DEMO_NODES}`,
    );
    const exchange = `http://127.0.0.1:${ports.get('CAREEN_EXCHANGE_PORT')}`;
    const asRoot = `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`;
    const get = async (path: string) => {
      const answer = await fetch(`${exchange}${path}`, { headers: { authorization: asRoot } });
      expect(answer.status).toBe(200);
      return (await answer.json()) as {
        items: { id?: string; name?: string; haGroup?: string; members?: string[]; status?: unknown }[];
      };
    };
    const groups = await get('/v1/orgs/demo/hagroups');
    expect(groups.items.map((group) => [group.name, group.members])).toEqual([
      ['demo-group-1', ['demo-0001', 'demo-0003', 'demo-0005']],
      ['demo-group-2', ['demo-0002', 'demo-0004', 'demo-0006']],
    ]);
    // FleetLock is on for the demo org: the summary's two curl commands take and give back a
    // reboot slot of the first node's group.
    const curls = [...output().matchAll(/curl -H 'fleet-lock-protocol: true' -d '(.+?)' (\S+)/g)];
    expect(curls.map(([, , url]) => url!.split('/').pop())).toEqual(['pre-reboot', 'steady-state']);
    const slots = [];
    for (const [, body, url] of curls) {
      const answer = await fetch(url!, { method: 'POST', headers: { 'fleet-lock-protocol': 'true' }, body });
      slots.push({ status: answer.status, body: await answer.json() });
    }
    expect(slots).toEqual([
      { status: 200, body: expect.objectContaining({ id: 'demo-0001', group: 'demo-group-1' }) },
      { status: 200, body: { id: 'demo-0001', group: 'demo-group-1', released: true } },
    ]);

    // The web console, with the services' APIs under its own origin.
    const consoleUrl = `http://127.0.0.1:${ports.get('CAREEN_CONSOLE_PORT')}`;
    expect(output()).toContain(`Console     ${consoleUrl}`);
    const page = await fetch(consoleUrl);
    expect([page.status, await page.text()]).toEqual([
      200,
      expect.stringContaining('<title>Careen console</title>'),
    ]);
    const viaConsole = await fetch(`${consoleUrl}/exchange/v1/orgs/demo/hagroups`, {
      headers: { authorization: asRoot },
    });
    expect(await viaConsole.json()).toMatchObject({ total: DEMO_GROUPS });

    await eventually(async () => {
      const nodes = await get('/v1/orgs/demo/nodes');
      expect(nodes.items).toHaveLength(DEMO_NODES);
      for (const node of nodes.items) {
        expect(node).toMatchObject({
          haGroup: expect.stringMatching(/^demo-group-[12]$/),
          status: { lastHeartbeat: expect.any(String), agentVersion: { package: '1.0.0', failed: null } },
        });
      }
    });

    // The demo app is placed before the start is over, and the summary names its nodes.
    const { password: demoPassword, appHosts } = demoOfSummary(output());
    expect(appHosts).toHaveLength(DEMO_NODES / 2);
    for (const host of appHosts)
      expect((await get(`/v1/orgs/demo/nodes/${host}/workloads`)).items).toEqual([
        expect.objectContaining({ deploymentPolicy: 'web' }),
      ]);

    // The maintenance walkthrough of the README: a session over an HA group the app runs in,
    // answered by the reference VNF manager of project shop.
    const maintenancePort = ports.get('CAREEN_MAINTENANCE_SESSION_PORT');
    if (maintenancePort) {
      const appGroup = groups.items.find((group) => group.members?.includes(appHosts[0]!))!.name;
      const asDemo = `Basic ${Buffer.from(`demo/admin:${demoPassword}`).toString('base64')}`;
      const maintenance = `http://127.0.0.1:${maintenancePort}`;
      const started = await fetch(`${maintenance}/v1/maintenance`, {
        method: 'POST',
        headers: { authorization: asDemo, 'content-type': 'application/json' },
        body: JSON.stringify({ selector: { ha_groups: [appGroup] }, host_action: 'simulated' }),
      });
      expect(started.status).toBe(201);
      const { session_id } = (await started.json()) as { session_id: string };
      await eventually(
        async () => {
          const session = await fetch(`${maintenance}/v1/maintenance/${session_id}`, {
            headers: { authorization: asDemo },
          });
          expect(((await session.json()) as { state: string }).state).toBe('MAINTENANCE_DONE');
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      );
      expect(output()).toContain('vnf manager shop: MAINTENANCE → ACK_MAINTENANCE');
      expect(output()).toContain('vnf manager shop: MAINTENANCE_COMPLETE → ACK_MAINTENANCE_COMPLETE');
      // With the notifier running, the events reached the VNF manager as its signed webhooks.
      const notifierPort = ports.get('CAREEN_NOTIFIER_PORT');
      if (notifierPort) {
        const deliveries = await fetch(`http://127.0.0.1:${notifierPort}/v1/deliveries?state=delivered`, {
          headers: { authorization: asDemo },
        });
        expect(((await deliveries.json()) as { total: number }).total).toBeGreaterThan(2);
      }
    }

    child.kill('SIGTERM');
    const exit = await exitOf(child, 30_000);
    // The launcher's output is part of the comparison only when it failed, to show why.
    expect(output()).toContain('Stopping the demo fleet…');
    expect({ exit, output: exit.code === 0 ? '' : output() }).toEqual({
      exit: { code: 0, signal: null },
      output: '',
    });

    const stillListening: string[] = [];
    for (const [envVar, port] of ports) if (await accepts(port)) stillListening.push(`${envVar}=${port}`);
    expect(stillListening).toEqual([]);
  });
});
