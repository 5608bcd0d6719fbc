/**
 * Two exchange replicas behind one address (a round-robin proxy, as a Kubernetes Service
 * puts them) serve one fleet of simulated agents: an agent's polls, status reports and
 * management statuses land on either replica, and the agbot reads and writes through the same
 * address. A policy published at one replica reaches the polls the other holds; every agent
 * reaches the new version, one member of an HA group at a time; both replicas answered the
 * agents; every node's heartbeat is stored, whichever replica took its polls.
 */
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { startSimulatedFleet, type SimulatedFleet } from '@careen/agent/src/index';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { basic, eventually, http, useTestInfra } from '@careen/testing';
import { publishAgentPackage } from './support/agent-packages';
import { overlapsWithinGroups, upgradeSpans } from './support/down-spans';
import { startReplicated, type ReplicatedService } from './support/replicated-service';

const ROOT_PASSWORD = 'replicas-root-password';
const root = basic('root', 'root', ROOT_PASSWORD);
const NODES = 20;
const GROUPS = 5;
/** Each agent's longest poll, its heartbeat: the last check waits for one more of them. */
const POLL_SECONDS = 2;
/** The policy's window: short, so that members of a group want the slot at the same time. */
const WINDOW_SECONDS = 4;

/** How many requests of a route pattern one replica answered, from its request-duration histogram. */
async function answered(url: string, method: string, route: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const [, labels, count] of text.matchAll(
    /^careen_http_request_duration_seconds_count\{([^}]*)\} (\S+)$/gm,
  ))
    if (labels!.includes(`method="${method}"`) && route.test(/route="([^"]*)"/.exec(labels!)?.[1] ?? ''))
      total += Number(count);
  return total;
}

describe('two exchange replicas serving one fleet', () => {
  const infra = useTestInfra();
  let exchange: ReplicatedService;
  let agbot: InProcessService<AgbotConfig>;
  let fleet: SimulatedFleet;
  const call = (method: string, path: string, body?: unknown) =>
    http(exchange.proxy.url, method, path, { auth: root, body });

  beforeAll(async () => {
    exchange = await startReplicated(
      'exchange',
      2,
      () => ({
        CAREEN_DATABASE_URL: infra.databaseUrl,
        CAREEN_NATS_URL: infra.natsUrl,
        CAREEN_NATS_STREAM_REPLICAS: String(infra.natsStreamReplicas),
        CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      }),
      (replicas) =>
        infra.track(async () => void (await Promise.all(replicas.map((replica) => replica.kill())))),
    );
    infra.track(() => exchange.proxy.close());
    agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.proxy.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      CAREEN_UPGRADE_LEASE_SECONDS: '30',
    });
    infra.track(() => agbot.close());
    await call('POST', '/v1/orgs', { id: 'acme' });
    await call('POST', '/v1/orgs/acme/users', {
      username: 'ada',
      password: 'ada-password',
      role: 'orgAdmin',
    });
    await publishAgentPackage(exchange.proxy.url, root, '1.0.0');
    await publishAgentPackage(exchange.proxy.url, root, '2.0.0');
    fleet = await startSimulatedFleet({
      exchangeUrl: exchange.proxy.url,
      agbotUrl: agbot.url,
      org: 'acme',
      admin: { username: 'ada', password: 'ada-password' },
      nodes: NODES,
      haGroups: GROUPS,
      initialVersion: '1.0.0',
      pollSeconds: POLL_SECONDS,
      logger: createLogger('exchange-replicas-fleet', { level: 'error' }),
    });
    // Stopped first: its agents' long polls would hold the replicas up.
    infra.track(() => fleet.stop());
  }, 120_000);

  it('upgrades every agent through either replica, one member of a group at a time, with every heartbeat stored', async () => {
    const published = await call('PUT', '/v1/orgs/acme/management-policies/fleet-upgrade', {
      enabled: true,
      allowDisruptive: true,
      agentUpgradePolicy: { atLeastVersion: 'current', start: 'now', duration: WINDOW_SECONDS },
    });
    expect(published.status).toBe(201);

    await eventually(() => expect(fleet.versions()).toEqual({ '2.0.0': NODES }), {
      timeoutMs: 110_000,
      intervalMs: 250,
    });
    const spans = upgradeSpans(fleet.timeline);
    expect(spans).toHaveLength(NODES);
    const groups = new Map(fleet.agents.map((agent) => [agent.node, agent.haGroup]));
    expect(overlapsWithinGroups(spans, groups)).toEqual([]);

    // Both replicas took the agents' polls and their status reports.
    for (const replica of exchange.replicas) {
      expect(await answered(replica.url, 'GET', /\/changes$/)).toBeGreaterThan(0);
      expect(await answered(replica.url, 'PUT', /\/managementStatus\//)).toBeGreaterThan(0);
    }
    // Each replica stores the heartbeats of the polls it answered: with the rollout over, agents
    // report no status, and only their polls move every node's last heartbeat on.
    const quietFrom = Date.now();
    await eventually(
      async () => {
        const nodes = (await call('GET', '/v1/orgs/acme/nodes')).body as {
          items: { id: string; status: { lastHeartbeat: string; agentVersion: { package: string } } }[];
        };
        expect(nodes.items).toHaveLength(NODES);
        for (const node of nodes.items) {
          expect([node.id, node.status.agentVersion.package]).toEqual([node.id, '2.0.0']);
          expect([node.id, Date.parse(node.status.lastHeartbeat) > quietFrom]).toEqual([node.id, true]);
        }
      },
      // A few polls' time, and room for two cores shared with other tests.
      { timeoutMs: 15_000, intervalMs: 250 },
    );
  });
});
