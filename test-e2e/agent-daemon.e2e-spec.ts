/**
 * The agent against the real exchange, in process: it keeps trying while the exchange is
 * down and gets on with its work when it comes back; it reports its status again once the
 * status interval has passed even when nothing changed; it runs the node's desired workloads
 * with the process runtime and reports them, with their state, in the node's status.
 */
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { freePort } from '@careen/devstack';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { basic, eventually, http, useTestInfra, withClient } from '@careen/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { AgentConfig } from '@careen/agent/src/agent.config';
import { AgentDaemon } from '@careen/agent/src/agent-daemon';
import { AgentStateStore } from '@careen/agent/src/state/agent-state.store';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);
const ada = basic('acme', 'ada', 'ada-password');

/** A TCP path to the exchange that can be opened later: until then, connections are refused. */
function forwarder(port: number, to: string): { open(): Promise<void>; close(): Promise<void> } {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const target = new URL(to);
  return {
    open: () =>
      new Promise<void>((resolve) => {
        server = createServer((inbound) => {
          const outbound = createConnection(Number(target.port), target.hostname);
          for (const socket of [inbound, outbound]) {
            sockets.add(socket);
            socket.on('close', () => sockets.delete(socket));
            socket.on('error', () => undefined);
          }
          inbound.pipe(outbound).pipe(inbound);
        }).listen(port, '127.0.0.1', resolve);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (!server) return resolve();
        server.close(() => resolve());
      }),
  };
}

describe('agent core against the real exchange', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let dir: string;
  const stops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await http(exchange.url, 'POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await http(exchange.url, 'POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'ada', password: 'ada-password', role: 'orgAdmin' },
    });
    dir = await mkdtemp(join(tmpdir(), 'careen-agent-core-'));
  });

  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  afterAll(async () => {
    await exchange.close();
    await rm(dir, { recursive: true, force: true });
  });

  function runAgent(node: string, env: Partial<AgentConfig>) {
    const lines: { msg: string }[] = [];
    const logger = createLogger('agent', {
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) },
    });
    const config = Object.assign(new AgentConfig(), {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGENT_ORG: 'acme',
      CAREEN_AGENT_NODE_ID: node,
      CAREEN_AGENT_STATE_DIR: join(dir, node, 'state'),
      CAREEN_AGENT_INSTALL_DIR: join(dir, node, 'install'),
      CAREEN_AGENT_POLL_SECONDS: 5,
      ...env,
    });
    const daemon = new AgentDaemon(config, new AgentStateStore(config.CAREEN_AGENT_STATE_DIR), logger);
    const running = daemon.start().then(() => daemon.run());
    stops.push(async () => {
      daemon.stop();
      await running;
    });
    return { lines, messages: () => lines.map((line) => line.msg) };
  }

  it('keeps trying while the exchange is down, registers itself and reports once it is back', async () => {
    const port = await freePort();
    const path = forwarder(port, exchange.url);
    stops.push(() => path.close());
    const agent = runAgent('late-1', {
      CAREEN_EXCHANGE_URL: `http://127.0.0.1:${port}`,
      CAREEN_AGENT_REGISTER_AS: 'ada:ada-password',
      CAREEN_AGENT_RUNTIME: 'simulated',
    });
    await eventually(() => expect(agent.messages()).toContain('exchange unreachable; will keep trying'));

    await path.open();
    await eventually(
      async () => {
        const node = await http(exchange.url, 'GET', '/v1/orgs/acme/nodes/late-1', { auth: ada });
        expect(node.body).toMatchObject({
          status: { lastHeartbeat: expect.any(String), agentVersion: { package: '0.1.0', failed: null } },
        });
      },
      { timeoutMs: 30_000 },
    );
    const registered = await http(exchange.url, 'GET', '/v1/orgs/acme/nodes/late-1', { auth: ada });
    expect(registered.body.policy.properties).toEqual(
      expect.arrayContaining([
        { name: 'careen.agentVersion', type: 'version', value: '0.1.0' },
        expect.objectContaining({ name: 'careen.arch', type: 'string' }),
      ]),
    );
    expect(agent.messages()).toEqual(
      expect.arrayContaining([
        'agent started',
        'exchange unreachable; will keep trying',
        'node registered',
        'exchange reachable',
      ]),
    );
  });

  it('reports an unchanged status once, then only polls: each poll moves its heartbeat on', async () => {
    await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/idle-1', {
      auth: ada,
      body: { token: 'idle-1-node-token' },
    });
    /** The node's status reports the exchange published, as the agbot sees them. */
    const statusReports = async () => {
      let since = 0;
      let reports = 0;
      for (;;) {
        const page = (
          await http(exchange.url, 'GET', `/v1/orgs/acme/changes?since=${since}&limit=1000`, { auth: ada })
        ).body as {
          changes: { resource: string; resourceId: string; data?: { status?: unknown } }[];
          lastId: number;
        };
        reports += page.changes.filter(
          (change) => change.resource === 'node' && change.resourceId === 'idle-1' && change.data?.status,
        ).length;
        if (page.changes.length === 0) return reports;
        since = page.lastId;
      }
    };
    const heartbeat = async () =>
      Date.parse(
        (await http(exchange.url, 'GET', '/v1/orgs/acme/nodes/idle-1', { auth: ada })).body.status
          .lastHeartbeat as string,
      );
    runAgent('idle-1', {
      CAREEN_AGENT_TOKEN: 'idle-1-node-token',
      CAREEN_AGENT_RUNTIME: 'simulated',
      CAREEN_AGENT_POLL_SECONDS: 1,
    });
    await eventually(async () => expect(await statusReports()).toBe(1));
    let seen = await heartbeat();
    for (let poll = 0; poll < 3; poll++) {
      const before = seen;
      seen = await eventually(
        async () => {
          const now = await heartbeat();
          expect(now).toBeGreaterThan(before);
          return now;
        },
        { timeoutMs: 10_000 },
      );
    }
    expect(await statusReports()).toBe(1);
    expect((await http(exchange.url, 'GET', '/v1/orgs/acme/nodes/idle-1', { auth: ada })).body).toMatchObject(
      {
        status: { agentVersion: { package: '0.1.0' }, workloads: [] },
      },
    );
  });

  it('starts from the head of the feed with the policies it lists, and reads afresh when the feed has moved past it', async () => {
    const publish = (name: string) =>
      http(exchange.url, 'PUT', `/v1/orgs/acme/management-policies/${name}`, {
        auth: ada,
        body: { nodes: ['fresh-1'], agentUpgradePolicy: { atLeastVersion: '9.0.0' } },
      });
    /** Forgets the feed's history as retention would: only polls from its head are answered. */
    const pruneFeed = () =>
      eventually(async () => {
        const left = await withClient(infra.databaseUrl, async (client) => {
          await client.query('DELETE FROM exchange.outbox WHERE published_at IS NOT NULL');
          return (await client.query('SELECT count(*)::int AS n FROM exchange.outbox')).rows[0].n as number;
        });
        expect(left).toBe(0);
      });
    const known = async () => Object.keys((await store.load())?.policies ?? {}).sort();
    const store = new AgentStateStore(join(dir, 'fresh-1', 'state'));
    await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/fresh-1', {
      auth: ada,
      body: { token: 'fresh-1-node-token' },
    });
    await publish('before-start');
    await publish('deleted-while-away');
    // History it could not read anyway: an agent replaying the feed from 0 would learn of neither policy.
    await pruneFeed();
    const env = { CAREEN_AGENT_TOKEN: 'fresh-1-node-token', CAREEN_AGENT_RUNTIME: 'simulated' as const };
    runAgent('fresh-1', env);
    await eventually(async () => expect(await known()).toEqual(['before-start', 'deleted-while-away']));
    await publish('while-running');
    await eventually(async () =>
      expect(await known()).toEqual(['before-start', 'deleted-while-away', 'while-running']),
    );

    await stops.pop()!();
    await http(exchange.url, 'DELETE', '/v1/orgs/acme/management-policies/deleted-while-away', { auth: ada });
    await publish('while-away');
    await pruneFeed();
    // An exchange replica keeps the newest changes in memory and would still answer from there;
    // one started now knows only the pruned log.
    const replica = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
    });
    const restarted = runAgent('fresh-1', { ...env, CAREEN_EXCHANGE_URL: replica.url });
    stops.push(() => replica.close());
    await eventually(async () =>
      expect(await known()).toEqual(['before-start', 'while-away', 'while-running']),
    );
    expect(restarted.messages()).toContain('change feed moved past our cursor; reading afresh');
  });

  it('runs the desired workloads as processes and reports them with their version and state', async () => {
    await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/worker-1', {
      auth: ada,
      body: { token: 'worker-1-node-token' },
    });
    runAgent('worker-1', {
      CAREEN_AGENT_TOKEN: 'worker-1-node-token',
      CAREEN_AGENT_RUNTIME: 'process',
      CAREEN_AGENT_WORKLOAD_COMMAND: 'exec sleep 300',
    });
    const desire = (version: string) =>
      http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/worker-1/workloads', {
        auth: root,
        body: { workloads: [{ deploymentPolicy: 'web', service: { org: 'acme', url: 'web', version } }] },
      });
    const reported = async () =>
      (
        (await http(exchange.url, 'GET', '/v1/orgs/acme/nodes/worker-1', { auth: ada })).body as {
          status?: { workloads?: unknown[] };
        }
      ).status?.workloads;

    expect((await desire('1.0.0')).status).toBe(200);
    await eventually(async () =>
      expect(await reported()).toEqual([
        { deploymentPolicy: 'web', service: { org: 'acme', url: 'web', version: '1.0.0' }, state: 'running' },
      ]),
    );
    await desire('1.1.0');
    await eventually(async () =>
      expect(await reported()).toEqual([
        { deploymentPolicy: 'web', service: { org: 'acme', url: 'web', version: '1.1.0' }, state: 'running' },
      ]),
    );
  });

  it('runs a simulated fleet from the careen-agent command line until stopped', async () => {
    const child = spawn(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        join(__dirname, '..', 'apps', 'agent', 'src', 'main.ts'),
        'simulate',
        '--nodes',
        '3',
      ],
      {
        cwd: join(__dirname, '..'),
        env: {
          PATH: process.env.PATH ?? '',
          CAREEN_EXCHANGE_URL: exchange.url,
          CAREEN_AGENT_ORG: 'acme',
          CAREEN_SIMULATOR_ADMIN: 'ada:ada-password',
          CAREEN_LOG_LEVEL: 'warn',
        },
        stdio: 'ignore',
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await eventually(
      async () => {
        for (const node of ['sim-0001', 'sim-0002', 'sim-0003']) {
          const answer = await http(exchange.url, 'GET', `/v1/orgs/acme/nodes/${node}`, { auth: ada });
          expect(answer.body).toMatchObject({ status: { agentVersion: { package: '1.0.0' } } });
        }
      },
      { timeoutMs: 30_000 },
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
