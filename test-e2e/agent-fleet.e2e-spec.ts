/**
 * A fleet of 30 simulated agents in 10 HA groups, against the real exchange and agbot, takes
 * one node management policy with a 4 s window: every agent reaches the new version; the
 * agents' own timeline shows no two members of a group upgrading at once (invariant 1); the
 * agent whose install fails is rolled back and does not try that version again; publishing a
 * newer package makes it try again. Each agent talks to the hub on connections of its own, as
 * each agent process does.
 */
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { startSimulatedFleet, type SimulatedFleet, type TimelineEntry } from '@careen/agent/src/index';
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { basic, eventually, http, useTestInfra } from '@careen/testing';
import { decodeJwt } from 'jose';
import { type IncomingMessage } from 'node:http';
import { type Socket } from 'node:net';
import { publishAgentPackage } from './support/agent-packages';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);
const NODES = 30;
const GROUPS = 10;
const FAILING = 'sim-0007';
/** The policy's window: short, so that members of a group want the slot at the same time. */
const WINDOW_SECONDS = 4;
/** Each agent's longest poll: how long a package published without a policy change takes to reach it. */
const POLL_SECONDS = 2;
const TERMINAL = ['successful', 'rolled-back', 'rollback-failed'];

/** Each agent's time holding its group: from `initiated` to its final status. */
function upgradeSpans(timeline: readonly TimelineEntry[], version: string) {
  const spans: { node: string; haGroup: string | null; from: number; to: number }[] = [];
  const open = new Map<string, number>();
  for (const entry of timeline) {
    if (entry.version !== version) continue;
    if (entry.status === 'initiated') open.set(entry.node, entry.at.getTime());
    if (TERMINAL.includes(entry.status) && open.has(entry.node)) {
      spans.push({
        node: entry.node,
        haGroup: entry.haGroup,
        from: open.get(entry.node)!,
        to: entry.at.getTime(),
      });
      open.delete(entry.node);
    }
  }
  return spans;
}

interface ConnectionUse {
  /** The nodes whose bearer tokens its requests carried. */
  nodes: Set<string>;
  /** Token requests on it (they carry the node's credentials in the body, not a bearer). */
  tokenRequests: number;
}

/** What each connection to a service carried, seen from the service's own HTTP server. */
function watchConnections(
  service: InProcessService<AgbotConfig | ExchangeConfig>,
): Map<Socket, ConnectionUse> {
  const connections = new Map<Socket, ConnectionUse>();
  service.app.getHttpServer().on('request', (request: IncomingMessage) => {
    const use = connections.get(request.socket) ?? { nodes: new Set(), tokenRequests: 0 };
    connections.set(request.socket, use);
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (bearer) use.nodes.add(decodeJwt(bearer).sub!);
    if (request.method === 'POST' && request.url === '/v1/auth/token') use.tokenRequests++;
  });
  return connections;
}

describe('agent fleet: rolling agent upgrades through HA groups', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let agbot: InProcessService<AgbotConfig>;
  let fleet: SimulatedFleet;
  let exchangeConnections: Map<Socket, ConnectionUse>;
  let agbotConnections: Map<Socket, ConnectionUse>;

  const call = (method: string, path: string, body?: unknown) =>
    http(exchange.url, method, path, { auth: root, body });
  const publish = (version: string) => publishAgentPackage(exchange.url, root, version);

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
      CAREEN_UPGRADE_LEASE_SECONDS: '30',
    });
    await call('POST', '/v1/orgs', { id: 'acme' });
    await call('POST', '/v1/orgs/acme/users', {
      username: 'ada',
      password: 'ada-password',
      role: 'orgAdmin',
    });
    await publish('1.0.0');
    await publish('2.0.0');
    exchangeConnections = watchConnections(exchange);
    agbotConnections = watchConnections(agbot);
    fleet = await startSimulatedFleet({
      exchangeUrl: exchange.url,
      agbotUrl: agbot.url,
      org: 'acme',
      admin: { username: 'ada', password: 'ada-password' },
      nodes: NODES,
      haGroups: GROUPS,
      initialVersion: '1.0.0',
      shouldFail: (node, version) => node === FAILING && version === '2.0.0',
      pollSeconds: POLL_SECONDS,
      logger: createLogger('agent-fleet', { level: 'error' }),
    });
    // Stopped before the services and the infra go: its agents' long polls would hold them up.
    infra.track(() => fleet.stop());
  });

  afterAll(async () => {
    await agbot?.close();
    await exchange?.close();
  });

  it('upgrades every agent within the window, one member of a group at a time, and rolls back the one that fails', async () => {
    const answer = await call('PUT', '/v1/orgs/acme/management-policies/fleet-upgrade', {
      enabled: true,
      allowDisruptive: true,
      agentUpgradePolicy: { atLeastVersion: 'current', start: 'now', duration: WINDOW_SECONDS },
    });
    expect(answer.status).toBeLessThan(300);

    // Each agent still behind, with its group and its last status, so that a wait that runs
    // out says where the rollout stopped.
    const behind = () =>
      fleet.agents
        .filter((agent) => agent.core.version !== '2.0.0')
        .map((agent) => {
          const last = fleet.timeline.filter((entry) => entry.node === agent.node).at(-1);
          return `${agent.node} (${agent.haGroup}): ${last ? `${last.status} ${last.version ?? ''}` : 'no status'}`;
        });
    await eventually(
      () =>
        expect({ versions: fleet.versions(), behind: behind() }).toEqual({
          versions: { '2.0.0': NODES - 1, '1.0.0': 1 },
          // Its rollback reported: the group's halt is healed and the slot free for the rest.
          behind: [expect.stringMatching(new RegExp(`^${FAILING} \\(.*\\): rolled-back 2\\.0\\.0$`))],
        }),
      // A few seconds of window and a rollback in one group; a full test run on two cores has
      // taken the rollout past a minute.
      { timeoutMs: 110_000 },
    );
    const failing = fleet.agents.find((agent) => agent.node === FAILING)!;
    await eventually(async () =>
      expect(
        (await call('GET', `/v1/orgs/acme/nodes/${FAILING}/managementStatus/fleet-upgrade`)).body,
      ).toMatchObject({
        status: 'rolled-back',
        version: '2.0.0',
      }),
    );
    expect(failing.core.version).toBe('1.0.0');
    expect((await call('GET', `/v1/orgs/acme/nodes/${FAILING}`)).body).toMatchObject({
      status: { agentVersion: { package: '1.0.0', failed: '2.0.0' } },
    });

    const spans = upgradeSpans(fleet.timeline, '2.0.0');
    expect(spans).toHaveLength(NODES);
    for (const group of new Set(spans.map((span) => span.haGroup))) {
      const members = spans.filter((span) => span.haGroup === group).sort((a, b) => a.from - b.from);
      expect(members).toHaveLength(NODES / GROUPS);
      for (let i = 1; i < members.length; i++)
        expect(members[i]!.from).toBeGreaterThanOrEqual(members[i - 1]!.to);
    }
    // The failed version was tried once on that node and not again.
    const tries = fleet.timeline.filter(
      (entry) => entry.node === FAILING && entry.version === '2.0.0' && entry.status === 'initiated',
    );
    expect(tries).toHaveLength(1);
    // Longer than the waits inside it: under load a wait, not the test, says what is missing.
  }, 180_000);

  it('tries the failed agent again once a newer package is published', async () => {
    await publish('2.1.0');
    await eventually(() => expect(fleet.versions()).toEqual({ '2.1.0': NODES }), { timeoutMs: 60_000 });
    expect(
      fleet.timeline
        .filter((entry) => entry.node === FAILING && entry.status === 'initiated')
        .map((entry) => entry.version),
    ).toEqual(['2.0.0', '2.1.0']);
  }, 120_000);

  it('keeps each agent on connections of its own, to the exchange and to the agbot', () => {
    for (const connections of [exchangeConnections, agbotConnections]) {
      const agents = [...connections.values()].filter((use) => use.nodes.size > 0 || use.tokenRequests > 0);
      expect(agents.length).toBeGreaterThanOrEqual(NODES);
      // One node per connection; a token asked for on a connection the node then uses.
      expect(agents.filter((use) => use.nodes.size !== 1)).toEqual([]);
    }
    const nodesSeen = new Set([...exchangeConnections.values()].flatMap((use) => [...use.nodes]));
    expect(nodesSeen.size).toBe(NODES);
  });
});
