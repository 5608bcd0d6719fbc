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
import { LauncherError } from './launcher-error';
import { rotateLog } from './log-files';

export const DEMO_ORG = 'demo';
export const DEMO_ADMIN = 'admin';
export const DEMO_AGENT_VERSION = '1.0.0';
export const DEMO_NODE_PREFIX = 'demo';
export const DEMO_PROJECT = 'shop';
export const DEMO_DEPLOYMENT_POLICY = 'web';
const DEMO_SERVICE_ARCHES = ['amd64', 'arm64'];
/** Long enough that members of a group whose moments fall close together wait their turn. */
const DEMO_INSTALL_SECONDS = 5;
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

export async function startDemoFleet(options: DemoFleetOptions): Promise<DemoFleet> {
  const asRoot = basic('root', 'root', options.rootPassword);
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(new URL(path, options.exchangeUrl), {
      method,
      headers: {
        authorization: asRoot,
        ...(body === undefined || Buffer.isBuffer(body) ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
  const expectStatus = async (what: string, answer: Promise<Response>, accepted: number[]) => {
    const response = await answer;
    if (!accepted.includes(response.status)) {
      throw new LauncherError(
        `the demo fleet could not ${what}: the exchange answered ${response.status} ${await response.text()}`,
      );
    }
    return response;
  };

  await expectStatus(
    'create the org "demo"',
    call('POST', '/v1/orgs', { id: DEMO_ORG, label: 'Demo' }),
    [201, 409],
  );
  await expectStatus(
    'add its org admin',
    call('POST', `/v1/orgs/${DEMO_ORG}/users`, {
      username: DEMO_ADMIN,
      password: options.adminPassword,
      role: 'orgAdmin',
    }),
    [201, 409],
  );
  const published = await expectStatus(
    `look up agent package ${DEMO_AGENT_VERSION}`,
    call('GET', `/v1/agent-packages/${DEMO_AGENT_VERSION}`),
    [200, 404],
  );
  if (published.status === 404) {
    await expectStatus(
      `publish agent package ${DEMO_AGENT_VERSION}`,
      call('POST', '/v1/agent-packages', await simulatedAgentPackage(DEMO_AGENT_VERSION), {
        'content-type': 'application/gzip',
      }),
      [201, 409],
    );
  }

  for (const arch of DEMO_SERVICE_ARCHES) {
    const service = `demo-web-${arch}`;
    const known = await expectStatus(
      `look up service ${service}`,
      call('GET', `/v1/orgs/${DEMO_ORG}/services/${service}`),
      [200, 404],
    );
    if (known.status === 404)
      await expectStatus(
        `publish service ${service}`,
        call('PUT', `/v1/orgs/${DEMO_ORG}/services/${service}`, {
          url: 'demo.web',
          version: '1.0.0',
          arch,
          runtime: {},
        }),
        [200, 201],
      );
  }
  const policyPath = `/v1/orgs/${DEMO_ORG}/deployment-policies/${DEMO_DEPLOYMENT_POLICY}`;
  const policy = await expectStatus(
    `look up deployment policy ${DEMO_DEPLOYMENT_POLICY}`,
    call('GET', policyPath),
    [200, 404],
  );
  const wantedReplicas = Math.max(1, Math.ceil(options.nodes / 2));
  const replicas =
    policy.status === 200
      ? ((await policy.json()) as { placement: { replicas?: number } }).placement.replicas
      : wantedReplicas;
  if (policy.status === 404)
    await expectStatus(
      `add deployment policy ${DEMO_DEPLOYMENT_POLICY}`,
      call('PUT', policyPath, {
        description: 'the demo web shop, on half the fleet',
        project: DEMO_PROJECT,
        service: { org: DEMO_ORG, url: 'demo.web', versionRange: '>=1.0.0' },
        placement: { mode: 'replicas', replicas: wantedReplicas },
      }),
      [200, 201],
    );

  rotateLog(options.logFile);
  const log = createWriteStream(options.logFile, { flags: 'w' });
  const logger = createLogger('demo-fleet', {
    level: options.logLevel,
    destination: { write: (line: string) => void log.write(line) },
  });
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
    installSeconds: DEMO_INSTALL_SECONDS,
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
  }).catch((error: unknown) => {
    log.end();
    throw new LauncherError(`the demo fleet did not start: ${(error as Error).message}`);
  });
  const started = fleet;
  const [firstAgent] = started.agents;
  const lastAgent = started.agents.at(-1);
  if (!firstAgent || !lastAgent) throw new Error('the demo fleet started no agents');
  // The app's replicas land on the nodes whose agents come first, so where it runs differs from start
  // to start: the summary names them, and what is tried next (a maintenance session) finds them.
  const appHosts = options.agbotUrl
    ? await nodesRunning(
        started.agents,
        DEMO_DEPLOYMENT_POLICY,
        Math.min(replicas ?? options.nodes, options.nodes),
        {
          timeoutMs: APP_PLACEMENT_MS,
          signal: options.signal,
        },
      )
    : [];
  const vnfManager =
    options.withMaintenance && options.natsUrl
      ? await startVnfManager(options, options.natsUrl, logger)
      : undefined;
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
      await started.stop();
      await new Promise<void>((resolve) => log.end(resolve));
    },
  };
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
