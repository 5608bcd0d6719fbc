/**
 * The demo of `npm start`: an org `demo` with an org admin, the agent package the simulated
 * agents start at, a fleet of simulated agents (the agent's own core, run in the launcher's
 * process) in HA groups, ready to be upgraded by a node management policy, and a service
 * `demo.web` that deployment policy `web` of project `shop` keeps on half the fleet. With the
 * maintenance service running, the reference VNF manager answers for project `shop`, so a
 * maintenance session can be tried at once. It only ever adds what is missing, so a restart
 * finds the same org, nodes, groups and policies.
 */
import { createWriteStream } from 'node:fs';
import {
  nodesRunning,
  simulatedAgentPackage,
  startSimulatedFleet,
  type SimulatedFleet,
} from '@careen/agent/src/index';
import { dataOf, type Notifier, type ServiceClient } from '@careen/api-client';
import { connectBus } from '@careen/bus';
import { ExchangeClient } from '@careen/service';
import { createLogger, type JsonLogger } from '@careen/telemetry';
import { ReferenceVnfManager } from '@careen/vnf-manager/src/reference-vnf-manager';
import {
  DEMO_ADMIN,
  DEMO_AGENT_VERSION,
  DEMO_DEPLOYMENT_POLICY,
  DEMO_NODE_PREFIX,
  DEMO_ORG,
  DEMO_PROJECT,
} from './demo-names';
import { LauncherError } from './launcher-error';
import { rotateLog } from './log-files';

const DEMO_SERVICE_ARCHES = ['amd64', 'arm64'];
/** How long the start waits for the agbot to place the demo app and its agents to run it. */
const APP_PLACEMENT_MS = 30_000;

export interface DemoFleetOptions {
  exchangeUrl: string;
  agbotUrl?: string;
  /** With the maintenance service running: the bus the reference VNF manager follows. */
  natsUrl?: string;
  /** The bus's creds file, where it enforces authorization. */
  natsCredsFile?: string;
  withMaintenance?: boolean;
  /** With the notifier running, the VNF manager receives its events as the notifier's webhooks. */
  notifierUrl?: string;
  rootPassword: string;
  adminPassword: string;
  nodes: number;
  haGroups: number;
  /** How long each simulated agent upgrade takes. */
  installSeconds: number;
  logFile: string;
  logLevel: string;
  /** Prints a line on the launcher's console. */
  print: (line: string) => void;
  /** A stop was requested: the wait for the demo app ends at once. */
  signal?: AbortSignal;
}

/** The steps of an agent upgrade shown on the console; the others are in the log. */
const SHOWN_STEPS = new Set([
  'ha-waiting',
  'initiated',
  'successful',
  'failed',
  'rolled-back',
  'rollback-failed',
  'download-failed',
  'precheck-failed',
  'conflict',
]);

export interface DemoFleet {
  nodes: number;
  haGroups: number;
  /** The first and last node ids. */
  nodeIds: [string, string];
  /** The first node's HA group (the group a FleetLock client of that node names). */
  firstGroup: string | null;
  logFile: string;
  /** The reference VNF manager answers for project `shop`. */
  vnfManager: boolean;
  /** The nodes that run the demo app when the start is over (none without the agbot). */
  appHosts: string[];
  stop(): Promise<void>;
}

/** What the demo adds at the exchange as the hub admin, each call answered with one of `accepted`. */
type AsRoot = (
  what: string,
  request: { method: string; path: string; body?: unknown; headers?: Record<string, string> },
  accepted: number[],
) => Promise<Response>;

export async function startDemoFleet(options: DemoFleetOptions): Promise<DemoFleet> {
  const asRoot = rootClient(options);
  // The agent package is the hub's: it needs nothing of the org.
  const [replicas] = await Promise.all([
    addDemoOrg(asRoot, options.adminPassword, options.nodes),
    addAgentPackage(asRoot),
  ]);

  rotateLog(options.logFile);
  const log = createWriteStream(options.logFile, { flags: 'w' });
  const logger = createLogger('demo-fleet', {
    level: options.logLevel,
    destination: { write: (line: string) => void log.write(line) },
  });
  // The agents (and the app's placement on them) and the VNF manager need nothing of each other.
  const [agents, manager] = await Promise.allSettled([
    startAgents(options, logger, replicas),
    options.withMaintenance && options.natsUrl
      ? startVnfManager(options, options.natsUrl, logger)
      : undefined,
  ]);
  if (agents.status === 'rejected' || manager.status === 'rejected') {
    // Whichever did start is stopped: nothing of a failed start is left running.
    if (agents.status === 'fulfilled') await agents.value.fleet.stop();
    if (manager.status === 'fulfilled') await manager.value?.stop();
    await new Promise<void>((resolve) => log.end(resolve));
    if (agents.status === 'rejected')
      throw new LauncherError(`the demo fleet did not start: ${(agents.reason as Error).message}`);
    throw (manager as PromiseRejectedResult).reason;
  }
  const { fleet, appHosts } = agents.value;
  const vnfManager = manager.value;
  const [firstAgent] = fleet.agents;
  const lastAgent = fleet.agents.at(-1);
  if (!firstAgent || !lastAgent) throw new Error('the demo fleet started no agents');
  return {
    nodes: options.nodes,
    haGroups: options.haGroups,
    nodeIds: [firstAgent.node, lastAgent.node],
    firstGroup: firstAgent.haGroup,
    logFile: options.logFile,
    vnfManager: vnfManager !== undefined,
    appHosts,
    stop: async () => {
      await vnfManager?.stop();
      await fleet.stop();
      await new Promise<void>((resolve) => log.end(resolve));
    },
  };
}

/** Calls of the exchange as the hub admin, failing with what the demo could not do. */
function rootClient(options: DemoFleetOptions): AsRoot {
  const authorization = basic('root', 'root', options.rootPassword);
  return async (what, { method, path, body, headers = {} }, accepted) => {
    const response = await fetch(new URL(path, options.exchangeUrl), {
      method,
      headers: {
        authorization,
        ...(body === undefined || Buffer.isBuffer(body) ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
    if (!accepted.includes(response.status)) {
      throw new LauncherError(
        `the demo fleet could not ${what}: the exchange answered ${response.status} ${await response.text()}`,
      );
    }
    return response;
  };
}

/** The org `demo`, then its admin and its app side by side; answers the app's replicas. */
async function addDemoOrg(asRoot: AsRoot, adminPassword: string, nodes: number): Promise<number | undefined> {
  await asRoot(
    'create the org "demo"',
    { method: 'POST', path: '/v1/orgs', body: { id: DEMO_ORG, label: 'Demo' } },
    [201, 409],
  );
  const [, replicas] = await Promise.all([
    asRoot(
      'add its org admin',
      {
        method: 'POST',
        path: `/v1/orgs/${DEMO_ORG}/users`,
        body: { username: DEMO_ADMIN, password: adminPassword, role: 'orgAdmin' },
      },
      [201, 409],
    ),
    addDemoApp(asRoot, nodes),
  ]);
  return replicas;
}

/** The agent package the simulated agents start at, published unless it is already. */
async function addAgentPackage(asRoot: AsRoot): Promise<void> {
  const published = await asRoot(
    `look up agent package ${DEMO_AGENT_VERSION}`,
    { method: 'GET', path: `/v1/agent-packages/${DEMO_AGENT_VERSION}` },
    [200, 404],
  );
  await published.body?.cancel();
  if (published.status === 404) {
    await asRoot(
      `publish agent package ${DEMO_AGENT_VERSION}`,
      {
        method: 'POST',
        path: '/v1/agent-packages',
        body: await simulatedAgentPackage(DEMO_AGENT_VERSION),
        headers: { 'content-type': 'application/gzip' },
      },
      [201, 409],
    );
  }
}

/**
 * Service `demo.web` for each architecture and deployment policy `web`, added unless they are
 * there; answers the policy's replicas (those of an earlier start, if it made them).
 */
async function addDemoApp(asRoot: AsRoot, nodes: number): Promise<number | undefined> {
  await Promise.all(
    DEMO_SERVICE_ARCHES.map(async (arch) => {
      const service = `demo-web-${arch}`;
      const path = `/v1/orgs/${DEMO_ORG}/services/${service}`;
      const known = await asRoot(`look up service ${service}`, { method: 'GET', path }, [200, 404]);
      await known.body?.cancel();
      if (known.status === 404)
        await asRoot(
          `publish service ${service}`,
          { method: 'PUT', path, body: { url: 'demo.web', version: '1.0.0', arch, runtime: {} } },
          [200, 201],
        );
    }),
  );
  const path = `/v1/orgs/${DEMO_ORG}/deployment-policies/${DEMO_DEPLOYMENT_POLICY}`;
  const policy = await asRoot(
    `look up deployment policy ${DEMO_DEPLOYMENT_POLICY}`,
    { method: 'GET', path },
    [200, 404],
  );
  if (policy.status === 200)
    return ((await policy.json()) as { placement: { replicas?: number } }).placement.replicas;
  await policy.body?.cancel();
  const replicas = Math.max(1, Math.ceil(nodes / 2));
  await asRoot(
    `add deployment policy ${DEMO_DEPLOYMENT_POLICY}`,
    {
      method: 'PUT',
      path,
      body: {
        description: 'the demo web shop, on half the fleet',
        project: DEMO_PROJECT,
        service: { org: DEMO_ORG, url: 'demo.web', versionRange: '>=1.0.0' },
        placement: { mode: 'replicas', replicas },
      },
    },
    [200, 201],
  );
  return replicas;
}

/** The simulated agents, once the agbot (when here) has placed the demo app and they run it. */
async function startAgents(
  options: DemoFleetOptions,
  logger: JsonLogger,
  replicas: number | undefined,
): Promise<{ fleet: SimulatedFleet; appHosts: string[] }> {
  let fleet: SimulatedFleet | undefined = undefined;
  fleet = await startSimulatedFleet({
    exchangeUrl: options.exchangeUrl,
    agbotUrl: options.agbotUrl,
    org: DEMO_ORG,
    admin: { username: DEMO_ADMIN, password: options.adminPassword },
    nodes: options.nodes,
    haGroups: options.haGroups,
    nodePrefix: DEMO_NODE_PREFIX,
    initialVersion: DEMO_AGENT_VERSION,
    installSeconds: options.installSeconds,
    observeStatuses: (entry) => {
      if (!SHOWN_STEPS.has(entry.status)) return;
      const versions = Object.entries(fleet?.versions() ?? {})
        .sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }))
        .map(([version, count]) => `${count} at ${version}`)
        .join(', ');
      options.print(
        `demo fleet  ${entry.node} (${entry.haGroup ?? 'no group'})  ${entry.nmp}: ${entry.status}` +
          `${entry.version ? ` ${entry.version}` : ''}   [${versions}]`,
      );
    },
    logger,
  });
  // The app's replicas land on the nodes whose agents come first, so where it runs differs from start
  // to start: the summary names them, and what is tried next (a maintenance session) finds them.
  const appHosts = options.agbotUrl
    ? await nodesRunning(
        fleet.agents,
        DEMO_DEPLOYMENT_POLICY,
        Math.min(replicas ?? options.nodes, options.nodes),
        { timeoutMs: APP_PLACEMENT_MS, signal: options.signal },
      )
    : [];
  return { fleet, appHosts };
}

/**
 * The reference VNF manager of project `shop`, its answers shown on the console. With the
 * notifier running it receives the project's events as signed webhooks, through a subscription
 * the demo makes (replacing the one of an earlier start); else it follows them on the bus.
 */
async function startVnfManager(
  options: DemoFleetOptions,
  natsUrl: string,
  logger: JsonLogger,
): Promise<{ stop(): Promise<void> }> {
  const bus = await connectBus({
    url: natsUrl,
    name: 'demo-vnf-manager',
    logger,
    credsFile: options.natsCredsFile,
  });
  const exchange = new ExchangeClient(options.exchangeUrl, {
    org: DEMO_ORG,
    username: DEMO_ADMIN,
    password: options.adminPassword,
  });
  const subscription = options.notifierUrl ? new DemoSubscription(exchange, options.notifierUrl) : undefined;
  const manager = new ReferenceVnfManager({
    bus,
    project: DEMO_PROJECT,
    follow: subscription ? { via: 'webhook', port: 0, secret: () => subscription.secret } : { via: 'bus' },
    replyVia: 'bus',
    exchange: { client: exchange, org: DEMO_ORG, deploymentPolicy: DEMO_DEPLOYMENT_POLICY },
    observe: (event, reply) =>
      options.print(
        `vnf manager ${DEMO_PROJECT}: ${event.state}${event.host ? ` ${event.host}` : ''}` +
          (reply
            ? ` → ${reply.state}${reply.instance_actions ? ` (${Object.keys(reply.instance_actions).length} instance(s) ${[...new Set(Object.values(reply.instance_actions))].join(', ')})` : ''}`
            : ''),
      ),
    logger,
  });
  const webhookUrl = await manager.start();
  if (subscription && webhookUrl) await subscription.replace(webhookUrl);
  return {
    stop: async () => {
      await manager.stop();
      await bus.close();
    },
  };
}

/** The demo's webhook subscription of project `shop` at the notifier. */
class DemoSubscription {
  /** Known once subscribed; the receiver checks deliveries with it. */
  secret: string | undefined;
  private readonly notifier: ServiceClient<Notifier.paths>;

  constructor(exchange: ExchangeClient, notifierUrl: string) {
    this.notifier = exchange.service<Notifier.paths>(notifierUrl);
  }

  /** Subscribes `url`, removing the demo's subscriptions of earlier starts (their receivers are gone). */
  async replace(url: string): Promise<void> {
    const { items } = await dataOf(this.notifier.GET('/v1/subscriptions'));
    const earlier = items.filter(
      (each) => each.project_id === DEMO_PROJECT && each.created_by === `${DEMO_ORG}/${DEMO_ADMIN}`,
    );
    for (const old of earlier)
      await dataOf(this.notifier.DELETE('/v1/subscriptions/{id}', { params: { path: { id: old.id } } }));
    const created = await dataOf(
      this.notifier.POST('/v1/subscriptions', {
        body: { scope: 'project', project_id: DEMO_PROJECT, kind: 'webhook', url, format: 'cloudevents' },
      }),
    );
    this.secret = created.secret;
  }
}

function basic(org: string, user: string, password: string): string {
  return `Basic ${Buffer.from(`${org}/${user}:${password}`).toString('base64')}`;
}
