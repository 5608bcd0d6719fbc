/**
 * What each hot route of the agent path sends to Postgres, counted from the services' own
 * traces: the exchange and the agbot run as processes exporting to a collector in the test,
 * each request carries a trace of its own, and the Postgres spans inside its server span are
 * its statements. Each route has a budget named below; a change that makes a route send more
 * fails here, before a fleet notices. The counts are printed, for the benchmarks' notes.
 */
import { freePort } from '@careen/devstack';
import {
  bearer,
  eventually,
  http,
  seedExchange,
  seededRoot,
  startOtlpCollector,
  useTestInfra,
  type Credentials,
  type OtlpCollector,
  ROOT_PASSWORD,
} from '@careen/testing';
import { randomBytes } from 'node:crypto';
import { publishAgentPackage } from './support/agent-packages';
import { KillableService } from './support/killable-service';

const SERVER = 2;

/**
 * Statements each route may send per request, at most, as measured when they were set (a
 * transaction's START and COMMIT count; so does the outbox's pg_notify after a commit).
 */
const BUDGETS = {
  /** Answered from memory; the heartbeat is stored within a second, with other polls', outside the request. */
  'poll the change feed': 0,
  /** The row updated and answered with its change's outbox row, in one statement; pg_notify. */
  'report status': 2,
  /**
   * The policy locked (asking whether the node exists), the status with its history row and its
   * change's outbox row, in one statement; pg_notify. (A failure takes a transaction of its own.)
   */
  'report a management status': 2,
  /** The package row, then its chunks (one for a small package) when they are not in memory yet. */
  'download the package': 2,
  /**
   * One batch that locks the group, takes its free slot and commits (its statements prepared once
   * per connection); pg_notify.
   */
  'take the HA-group slot': 2,
  'renew the slot': 1,
  /** The release, pg_notify. */
  'release the slot': 2,
};
type Route = keyof typeof BUDGETS;

describe('Postgres statements per request on the agent path', () => {
  const infra = useTestInfra();
  const services: KillableService[] = [];
  let collector: OtlpCollector;

  beforeAll(async () => {
    collector = await startOtlpCollector();
  });

  afterAll(async () => {
    for (const service of services) await service.kill();
    await collector.close();
  });

  /** The service as its own process, exporting its traces to the collector. */
  const start = async (app: string, env: Record<string, string>) => {
    const port = await freePort();
    const service = new KillableService(app, port, () => ({
      CAREEN_DATABASE_URL: infra.databaseUrl,
      CAREEN_NATS_URL: infra.natsUrl,
      CAREEN_OTEL_ENDPOINT: collector.url,
      [`CAREEN_${app.toUpperCase()}_PORT`]: String(port),
      ...env,
    }));
    services.push(service);
    await service.start();
    return service.url;
  };

  /** Sends one request in a trace of its own; answers its status and the trace's id. */
  const traced = async (
    base: string,
    method: string,
    path: string,
    auth: Credentials,
    body?: unknown,
  ): Promise<{ status: number; traceId: string }> => {
    const traceId = randomBytes(16).toString('hex');
    const answer = await http(base, method, path, {
      auth,
      body,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    return { status: answer.status, traceId };
  };

  /**
   * The Postgres statements `service` sent for the request of trace `traceId`: each query span
   * of the service in that trace, transaction control and the outbox's wake-up after the commit
   * included. Pool connects are not statements, nor is a PREPARE: it is sent once in a
   * connection's life, as node-postgres parses a named statement once per connection within the
   * query that first runs it. Undefined until the service exported the trace.
   */
  const statements = (service: string, traceId: string): number | undefined => {
    const spans = collector.spans().filter((span) => span.traceId === traceId && span.service === service);
    if (!spans.some((span) => span.kind === SERVER)) return undefined;
    return spans.filter(
      (span) => span.name.startsWith('pg.query:') && !span.name.startsWith('pg.query:PREPARE'),
    ).length;
  };

  it('keeps every hot route within its budget', async () => {
    const exchange = await start('exchange', { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    const agbot = await start('agbot', {
      CAREEN_EXCHANGE_URL: exchange,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    await seedExchange(exchange, { b: { nodes: ['n1', 'n2'] } });
    await http(exchange, 'POST', '/v1/orgs/b/hagroups', {
      auth: seededRoot,
      body: { name: 'pair', members: ['n1', 'n2'] },
    });
    await publishAgentPackage(exchange, seededRoot, '2.0.0');
    await http(exchange, 'PUT', '/v1/orgs/b/management-policies/up', {
      auth: seededRoot,
      body: { enabled: true, nodes: ['n1'], agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now' } },
    });
    const token = (
      await http(exchange, 'POST', '/v1/auth/token', {
        body: { org: 'b', node: 'n1', token: 'n1-token-0123456789' },
      })
    ).body.accessToken as string;
    const node = bearer(token);

    const traces: Partial<Record<Route, { service: string; traceId: string }>> = {};
    const send = async (
      route: Route,
      service: string,
      base: string,
      method: string,
      path: string,
      body?: unknown,
    ) => {
      const { status, traceId } = await traced(base, method, path, node, body);
      expect({ route, answered: status < 300 ? 'ok' : status }).toEqual({ route, answered: 'ok' });
      traces[route] = { service, traceId };
    };
    // Warm: the first request of each kind prepares statements and caches keys.
    const { lastId } = (await http(exchange, 'GET', '/v1/orgs/b/changes/head', { auth: node })).body;
    const status = {
      agentVersion: { package: '1.0.0', failed: null, upgradeStart: null, upgradeEnd: null },
      workloads: [],
    };
    for (let round = 0; round < 2; round++) {
      await send(
        'poll the change feed',
        'exchange',
        exchange,
        'GET',
        `/v1/orgs/b/changes?since=${lastId}&wait=0`,
      );
      await send('report status', 'exchange', exchange, 'PUT', '/v1/orgs/b/nodes/n1/status', status);
      await send(
        'report a management status',
        'exchange',
        exchange,
        'PUT',
        '/v1/orgs/b/nodes/n1/managementStatus/up',
        {
          status: 'downloading',
          version: '2.0.0',
        },
      );
      await send('download the package', 'exchange', exchange, 'GET', '/v1/agent-packages/2.0.0/content');
      // The agbot knows the node and the policy once its mirror has them.
      await eventually(
        () =>
          send('take the HA-group slot', 'agbot', agbot, 'POST', '/v1/orgs/b/nodes/n1/upgrade', {
            managementPolicy: 'up',
          }),
        { timeoutMs: 30_000 },
      );
      await send('renew the slot', 'agbot', agbot, 'POST', '/v1/orgs/b/nodes/n1/upgrade', {
        managementPolicy: 'up',
        renew: true,
      });
      await send('release the slot', 'agbot', agbot, 'DELETE', '/v1/orgs/b/nodes/n1/upgrade');
    }

    const counts = await eventually(
      () => {
        const found = Object.fromEntries(
          Object.entries(traces).map(([route, { service, traceId }]) => [
            route,
            statements(service, traceId),
          ]),
        );
        expect(Object.values(found).every((count) => count !== undefined)).toBe(true);
        return found as Record<Route, number>;
      },
      { timeoutMs: 30_000 },
    );
    process.stdout.write(`statements per request: ${JSON.stringify(counts)}\n`);
    expect(Object.entries(counts).filter(([route, count]) => count > BUDGETS[route as Route])).toEqual([]);
  }, 180_000);
});
