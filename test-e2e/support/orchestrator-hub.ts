/**
 * What the deployment-orchestrator tests stand on: the rollout hub (exchange, agbot, org `acme`,
 * agent packages 1.0.0 and 2.0.0), and nine simulated agents laid out as Shipyard's example
 * fleet — an NTP node, three control nodes on rack03 (one HA group), two compute nodes on each
 * of rack01 and rack02 and a monitoring node. The orchestrator itself is started by each test,
 * in this process or as its own.
 */
import { startSimulatedFleet, type SimulatedFleet, type TimelineEntry } from '@careen/agent/src/index';
import { SEED_STRATEGY_YAML } from '@careen/contracts/src/strategies/seed-strategy.fixture';
import { createLogger } from '@careen/telemetry';
import { eventually, http, type Credentials, type HttpResult } from '@careen/testing';
import { publishAgentPackage } from './agent-packages';
import { ACME_ADMIN, HUB_ROOT, ORG_ADMIN, startRolloutHub, type RolloutHub } from './rollout-hub';

export { ACME_ADMIN, HUB_ROOT };

/** The simulated nodes by their part in Shipyard's example strategy (docs/domain.md). */
export const ROLES = {
  ntp: ['sim-0001'],
  control: ['sim-0002', 'sim-0005', 'sim-0008'],
  compute1: ['sim-0003', 'sim-0006'],
  compute2: ['sim-0004', 'sim-0007'],
  monitoring: ['sim-0009'],
};

/** Each node's tags and rack, as Shipyard's example fleet has them. */
export const SEED_LAYOUT: Record<string, { tags: string[]; rack: string }> = {
  ...Object.fromEntries(ROLES.ntp.map((node) => [node, { tags: ['ntp'], rack: 'rack03' }])),
  ...Object.fromEntries(ROLES.control.map((node) => [node, { tags: ['control'], rack: 'rack03' }])),
  ...Object.fromEntries(ROLES.compute1.map((node) => [node, { tags: ['compute'], rack: 'rack01' }])),
  ...Object.fromEntries(ROLES.compute2.map((node) => [node, { tags: ['compute'], rack: 'rack02' }])),
  ...Object.fromEntries(ROLES.monitoring.map((node) => [node, { tags: ['monitoring'], rack: 'rack02' }])),
};

/** Shipyard's example strategy as Shipyard writes it, its NTP node named as this fleet names it. */
export const SEED_STRATEGY = SEED_STRATEGY_YAML.replace('- ntp01', `- ${ROLES.ntp[0]}`);

export interface OrchestratorHub {
  rollouts: RolloutHub;
  fleet: SimulatedFleet;
  /** Every status step the agents reported. */
  timeline: readonly TimelineEntry[];
  /** Versions, by node, whose installs fail their health check. */
  failing: Map<string, Set<string>>;
  /** The settings the orchestrator needs against this hub. */
  orchestratorEnv: Record<string, string>;
  /** The names of acme's management policies that start with `prefix`. */
  policiesNamed(prefix: string): Promise<string[]>;
  /** Publishes agent package `version`; answers its bytes. */
  publishPackage(version: string): Promise<Buffer>;
  close(): Promise<void>;
}

export async function startOrchestratorHub(
  infra: {
    databaseUrl: string;
    natsUrl: string;
    track(close: () => Promise<void>): void;
  },
  agbotEnv: Record<string, string> = {},
): Promise<OrchestratorHub> {
  const rollouts = await startRolloutHub(infra, agbotEnv);
  const failing = new Map<string, Set<string>>();
  const fleet = await startSimulatedFleet({
    exchangeUrl: rollouts.exchange.url,
    agbotUrl: rollouts.agbot.url,
    org: 'acme',
    admin: ORG_ADMIN,
    nodes: 9,
    // Dealt round-robin: sim-0002, -0005 and -0008 (the control nodes) share sim-group-2.
    haGroups: 3,
    initialVersion: '1.0.0',
    installSeconds: 0.3,
    pollSeconds: 1,
    shouldFail: (node, version) => failing.get(node)?.has(version) ?? false,
    logger: createLogger('orchestrator-fleet', { level: 'error' }),
  });
  // Stopped before the services and the infra go: its agents' long polls would hold them up.
  infra.track(() => fleet.stop());
  for (const [node, layout] of Object.entries(SEED_LAYOUT)) {
    const placed = await rollouts.call('PUT', `/v1/orgs/acme/nodes/${node}`, layout, HUB_ROOT);
    if (placed.status >= 300)
      throw new Error(`placing ${node}: ${placed.status} ${JSON.stringify(placed.body)}`);
  }
  return {
    rollouts,
    fleet,
    timeline: fleet.timeline,
    failing,
    orchestratorEnv: {
      CAREEN_EXCHANGE_URL: rollouts.exchange.url,
      CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD: 'root-password-1',
      CAREEN_ORCHESTRATOR_TICK_MS: '100',
      CAREEN_AGBOT_URL: rollouts.agbot.url,
    },
    policiesNamed: async (prefix) => {
      const listed = await rollouts.call('GET', '/v1/orgs/acme/management-policies');
      return (listed.body.items as { name: string }[])
        .map((policy) => policy.name)
        .filter((name) => name.startsWith(prefix));
    },
    publishPackage: (version) => publishAgentPackage(rollouts.exchange.url, HUB_ROOT, version),
    close: () => rollouts.close(),
  };
}

/** A call to the orchestrator at `url`, as acme's admin unless told otherwise. */
export function orchestratorCall(url: string) {
  return (
    method: string,
    path: string,
    body?: unknown,
    auth: Credentials = ACME_ADMIN,
  ): Promise<HttpResult> => http(url, method, path, { auth, body });
}

/** Publishes a strategy document as YAML to the orchestrator at `url`, as acme's admin. */
export function publishStrategyYaml(url: string, text: string): Promise<HttpResult> {
  return http(url, 'POST', '/v1/strategies', {
    auth: ACME_ADMIN,
    rawBody: Buffer.from(text),
    headers: { 'content-type': 'application/yaml' },
  });
}

/** The rollout's report once it has ended (completed, failed or cancelled). */
export function rolloutEnded(call: ReturnType<typeof orchestratorCall>, id: string) {
  return eventually(
    async () => {
      const report = (await call('GET', `/v1/rollouts/${id}`)).body;
      expect(['completed', 'failed', 'cancelled']).toContain(report.state);
      return report;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
}
