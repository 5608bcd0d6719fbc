/**
 * What the maintenance tests stand on: the exchange, an agbot and the maintenance service in
 * this process; the org `acme` with its admin; a fleet of nodes that run what they are given
 * (hosts h1 and h2 in HA group `pair`, lone hosts s1 and s2, spares x1..x3 that take the
 * workloads moved off); project `red` running everywhere (mode all) and project `blue` with two
 * replicas, placed on the hosts maintained. With `green`, project `green` keeps two replicas on
 * the nodes of zone a (h1, s1, x1): a session over h1 and s1 leaves too few for it, so it is
 * asked to DOWN_SCALE.
 */
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { connectBus, type BusConnection } from '@careen/bus';
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { type MaintenanceSessionConfig } from '@careen/maintenance-session/src/maintenance-session.config';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { type NotifierConfig } from '@careen/notifier/src/notifier.config';
import { notifierService } from '@careen/notifier/src/notifier.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, bearer, eventually, http, type Credentials, type HttpResult } from '@careen/testing';
import { ServiceFleet, type FleetNodeSpec } from './service-fleet';

const ROOT_PASSWORD = 'root-password-1';
export const ROOT = basic('root', 'root', ROOT_PASSWORD);
export const ADA = basic('acme', 'ada', 'ada-password');

const web = [{ name: 'role', value: 'web' }];
export const HOSTS = ['h1', 'h2', 's1', 's2'];
export const SPARES = ['x1', 'x2', 'x3'];
const ZONE_A = ['h1', 's1', 'x1'];
const NODES: FleetNodeSpec[] = [...HOSTS, ...SPARES].map((id, index) => ({
  id,
  rack: `r${index}`,
  properties: [...web, { name: 'zone', value: ZONE_A.includes(id) ? 'a' : 'b' }],
}));

export interface MaintenanceHubOptions {
  /** Settings of the maintenance service. */
  env?: Record<string, string>;
  /** Start the maintenance service in this process (default); else the test runs it itself. */
  inProcess?: boolean;
  /**
   * Starts what the test adds to the hub (with `inProcess: false`, the maintenance service
   * itself): called once the exchange and the agbot serve, it runs while the fleet takes its
   * workloads, and the hub is ready once it is done.
   */
  alongside?: (started: { exchangeUrl: string; maintenanceEnv: Record<string, string> }) => Promise<unknown>;
  /** Add project green, which must DOWN_SCALE for a session over h1 and s1. */
  green?: boolean;
  /** Start a notifier too (while the fleet takes its workloads), webhooks to loopback allowed. */
  notifier?: boolean;
}

export interface MaintenanceHub {
  exchange: InProcessService<ExchangeConfig>;
  agbot: InProcessService<AgbotConfig>;
  maintenance: InProcessService<MaintenanceSessionConfig> | undefined;
  notifier: InProcessService<NotifierConfig> | undefined;
  /** What the maintenance service needs to run against this hub. */
  maintenanceEnv: Record<string, string>;
  fleet: ServiceFleet;
  bus: BusConnection;
  /** A call to the exchange, as root unless told otherwise. */
  exchangeCall(method: string, path: string, body?: unknown, auth?: Credentials): Promise<HttpResult>;
  /**
   * Waits until project red runs on each of `hosts` again: a session that cordoned a host took
   * it off, and the agbot puts it back a moment after the host serves again.
   */
  redRunsOn(hosts: readonly string[]): Promise<void>;
  /** A call to the maintenance service, as acme's admin unless told otherwise. */
  call(method: string, path: string, body?: unknown, auth?: Credentials): Promise<HttpResult>;
  close(): Promise<void>;
}

export async function startMaintenanceHub(
  infra: { databaseUrl: string; natsUrl: string; track(close: () => Promise<void>): void },
  options: MaintenanceHubOptions = {},
): Promise<MaintenanceHub> {
  const exchange = await startServiceInProcess(exchangeService, infra, {
    CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
  });
  // The agbot starts while the hub is set up: it learns of every change as it would later, and
  // no policy exists before the spares are unschedulable, so blue's replicas land as they would.
  const agbotStarted = meanwhile(
    startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    }),
  );
  const busConnected = meanwhile(
    connectBus({ url: infra.natsUrl, name: 'maintenance-test' }).then((bus) => {
      infra.track(() => bus.close());
      return bus;
    }),
  );
  const must = async (answer: Promise<HttpResult>) => {
    const { status, body } = await answer;
    if (status >= 300) throw new Error(`setting up the hub: ${status} ${JSON.stringify(body)}`);
    return body;
  };
  // Root's password is checked with scrypt on every Basic call; a token is checked by signature
  // alone, and outlasts any test file.
  const root = bearer(
    (
      await must(
        http(exchange.url, 'POST', '/v1/auth/token', {
          body: { org: 'root', username: 'root', password: ROOT_PASSWORD },
        }),
      )
    ).accessToken,
  );
  const exchangeCall = (method: string, path: string, body?: unknown, auth: Credentials = root) =>
    http(exchange.url, method, path, { auth, body });
  await must(exchangeCall('POST', '/v1/orgs', { id: 'acme' }));
  await must(
    exchangeCall('POST', '/v1/orgs/acme/users', {
      username: 'ada',
      password: 'ada-password',
      role: 'orgAdmin',
    }),
  );
  // Nodes report at once what changes; a heartbeat only keeps a node online for the agbot (for
  // minutes), and every report is a change the exchange relays and the agbot takes in.
  const fleet = await ServiceFleet.register(exchange.url, 'acme', root, NODES, {
    startMs: 50,
    heartbeatMs: 5_000,
  });
  // The spares take no workloads until the hosts have theirs: blue's replicas start on the hosts.
  await Promise.all([
    must(exchangeCall('POST', '/v1/orgs/acme/hagroups', { name: 'pair', members: ['h1', 'h2'] })),
    ...SPARES.map((spare) =>
      must(exchangeCall('PATCH', `/v1/orgs/acme/nodes/${spare}`, { schedulable: false })),
    ),
    must(
      exchangeCall('PUT', '/v1/orgs/acme/services/web-1-0-0', {
        url: 'acme.web',
        version: '1.0.0',
        arch: 'amd64',
        runtime: {},
      }),
    ),
  ]);
  const policy = (project: string, placement: object, constraint = 'role == "web"') => ({
    project,
    service: { org: 'acme', url: 'acme.web', versionRange: '>=1.0.0' },
    constraints: [constraint],
    placement,
  });
  await Promise.all([
    must(exchangeCall('PUT', '/v1/orgs/acme/deployment-policies/red-web', policy('red', { mode: 'all' }))),
    must(
      exchangeCall(
        'PUT',
        '/v1/orgs/acme/deployment-policies/blue-web',
        policy('blue', { mode: 'replicas', replicas: 2 }),
      ),
    ),
    options.green &&
      must(
        exchangeCall(
          'PUT',
          '/v1/orgs/acme/deployment-policies/green-web',
          policy('green', { mode: 'replicas', replicas: 2 }, 'role == "web" && zone == "a"'),
        ),
      ),
  ]);
  fleet.start();
  infra.track(() => fleet.stop());
  const agbot = await agbotStarted;
  const maintenanceEnv = {
    CAREEN_EXCHANGE_URL: exchange.url,
    CAREEN_AGBOT_URL: agbot.url,
    CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    CAREEN_MAINTENANCE_TICK_MS: '50',
    ...options.env,
  };
  // The maintenance service starts while the fleet takes its workloads; no session is asked
  // for before they run.
  const maintenanceStarted = meanwhile(
    options.inProcess === false
      ? Promise.resolve(undefined)
      : startServiceInProcess(maintenanceSessionService, infra, maintenanceEnv),
  );
  const alongside = meanwhile(
    Promise.resolve(options.alongside?.({ exchangeUrl: exchange.url, maintenanceEnv })),
  );
  const notifierStarted = meanwhile(
    options.notifier
      ? startServiceInProcess(notifierService, infra, {
          CAREEN_EXCHANGE_URL: exchange.url,
          CAREEN_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.0/8',
          CAREEN_NOTIFIER_EXCHANGE_PASSWORD: ROOT_PASSWORD,
          CAREEN_NOTIFIER_POLL_MS: '50',
        })
      : Promise.resolve(undefined),
  );
  await eventually(
    () => {
      for (const host of HOSTS)
        expect(fleet.running(host).map((each) => each.deploymentPolicy)).toContain('red-web');
      expect(
        HOSTS.filter((host) => fleet.running(host).some((each) => each.deploymentPolicy === 'blue-web')),
      ).toHaveLength(2);
    },
    { timeoutMs: 30_000 },
  );
  await Promise.all(
    SPARES.map((spare) => must(exchangeCall('PATCH', `/v1/orgs/acme/nodes/${spare}`, { schedulable: true }))),
  );
  // Project red (mode all) comes to the spares too before any session is asked for.
  await eventually(
    () => {
      for (const spare of SPARES)
        expect(fleet.running(spare).map((each) => each.deploymentPolicy)).toContain('red-web');
    },
    { timeoutMs: 30_000 },
  );
  const [maintenance, bus, , notifier] = await Promise.all([
    maintenanceStarted,
    busConnected,
    alongside,
    notifierStarted,
  ]);
  return {
    exchange,
    agbot,
    maintenance,
    notifier,
    maintenanceEnv,
    fleet,
    bus,
    exchangeCall,
    redRunsOn: (hosts) =>
      eventually(
        () => {
          for (const host of hosts)
            expect(fleet.running(host).map((each) => each.deploymentPolicy)).toContain('red-web');
        },
        { timeoutMs: 30_000 },
      ),
    call: (method, path, body, auth = ADA) => http(maintenance!.url, method, path, { auth, body }),
    close: async () => {
      await notifier?.close();
      await maintenance?.close();
      await agbot.close();
      await exchange.close();
    },
  };
}

/** A start awaited later: should the setup fail before then, its own failure is not left unhandled. */
function meanwhile<T>(started: Promise<T>): Promise<T> {
  started.catch(() => undefined);
  return started;
}
