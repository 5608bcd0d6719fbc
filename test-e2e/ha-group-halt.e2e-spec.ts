/**
 * A third of a fleet failing its agent upgrade, against the real exchange and agbot: 9
 * simulated agents in 3 HA groups, one failing member per group, one of which cannot even roll
 * back. From the agents' own timeline, no group ever has two members failed or upgrading at
 * once; the group whose member is left broken is halted, naming it and its error, until the
 * operator repairs the node and resets it, and then the group goes on.
 */
import { startSimulatedFleet, type SimulatedFleet, type TimelineEntry } from '@careen/agent/src/index';
import { createLogger } from '@careen/telemetry';
import { eventually, http, seededRandom, useTestInfra } from '@careen/testing';
import { ACME_ADMIN, ORG_ADMIN, startRolloutHub, type RolloutHub } from './support/rollout-hub';

/** Members are dealt round-robin: node i is in group (i - 1) % 3 + 1. */
const FAILING = ['sim-0001', 'sim-0005'];
const BROKEN = 'sim-0009';
const HEALTHY_ENDS = ['successful', 'rolled-back'];

interface Span {
  node: string;
  haGroup: string | null;
  from: number;
  to: number;
}

/** Each member's time down: from `initiated` until it is healthy again, or until `openUntil`. */
function downSpans(timeline: readonly TimelineEntry[], openUntil: Map<string, number>): Span[] {
  const spans: Span[] = [];
  const open = new Map<string, TimelineEntry>();
  for (const entry of timeline) {
    if (entry.status === 'initiated') open.set(entry.node, entry);
    const started = open.get(entry.node);
    if (!started) continue;
    const end = HEALTHY_ENDS.includes(entry.status)
      ? entry.at.getTime()
      : entry.status === 'rollback-failed'
        ? openUntil.get(entry.node)
        : undefined;
    if (end === undefined) continue;
    spans.push({ node: entry.node, haGroup: entry.haGroup, from: started.at.getTime(), to: end });
    open.delete(entry.node);
  }
  for (const [node, started] of open)
    spans.push({ node, haGroup: started.haGroup, from: started.at.getTime(), to: Number.POSITIVE_INFINITY });
  return spans;
}

describe('HA groups halted by a failed member', () => {
  const infra = useTestInfra();
  let hub: RolloutHub;
  let fleet: SimulatedFleet;

  const call = (method: string, path: string, body?: unknown) => hub.call(method, path, body);
  const groups = async () =>
    (await http(hub.agbot.url, 'GET', '/v1/orgs/acme/upgrade-groups', { auth: ACME_ADMIN })).body.items as {
      haGroup: string;
      state: string;
      halted: { node: string; error: string | null } | null;
    }[];
  const statusOf = async (node: string, nmp = 'third-fails') =>
    (await call('GET', `/v1/orgs/acme/nodes/${node}/managementStatus/${nmp}`)).body.status as string;
  const publish = (name: string, nodes: string[]) =>
    call('PUT', `/v1/orgs/acme/management-policies/${name}`, {
      enabled: true,
      nodes,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 6 },
    });

  beforeAll(async () => {
    hub = await startRolloutHub(infra);
    fleet = await startSimulatedFleet({
      exchangeUrl: hub.exchange.url,
      agbotUrl: hub.agbot.url,
      org: 'acme',
      admin: ORG_ADMIN,
      nodes: 9,
      haGroups: 3,
      initialVersion: '1.0.0',
      installSeconds: 0.3,
      shouldFail: (node) => FAILING.includes(node) || node === BROKEN,
      shouldFailRollback: (node) => node === BROKEN,
      pollSeconds: 2,
      random: seededRandom(34),
      logger: createLogger('ha-group-halt', { level: 'error' }),
    });
    // Stopped before the services and the infra go: its agents' long polls would hold them up.
    infra.track(() => fleet.stop());
  });

  afterAll(async () => {
    await hub?.close();
  });

  it('never has two members of a group down, halts the group of a broken member, and goes on after a reset', async () => {
    const peers = fleet.agents.filter((agent) => agent.haGroup === 'sim-group-3' && agent.node !== BROKEN);
    const peerIds = peers.map((agent) => agent.node);
    // The broken node's peers come later, by a policy of their own, so that they meet its halt.
    const first = fleet.agents.map((agent) => agent.node).filter((node) => !peerIds.includes(node));
    expect((await publish('third-fails', first)).status).toBe(201);

    await eventually(async () => expect(await statusOf(BROKEN)).toBe('rollback-failed'), {
      timeoutMs: 60_000,
    });
    await eventually(async () =>
      expect((await groups()).find((group) => group.haGroup === 'sim-group-3')).toMatchObject({
        state: 'halted',
        halted: { node: BROKEN, error: expect.stringContaining('health check of 1.0.0 failed') },
      }),
    );
    // The rest of the fleet finishes; the broken node's peers wait for its group, whatever policy they follow.
    expect((await publish('late-comers', peerIds)).status).toBe(201);
    await eventually(
      async () => {
        for (const agent of fleet.agents.filter((each) => each.haGroup !== 'sim-group-3'))
          expect(['successful', 'rolled-back']).toContain(await statusOf(agent.node));
        for (const node of peerIds) expect(await statusOf(node, 'late-comers')).toBe('ha-waiting');
      },
      { timeoutMs: 60_000 },
    );
    expect(peers.map((agent) => agent.core.version)).toEqual(['1.0.0', '1.0.0']);

    // The operator repairs the node, then resets it: the group goes on, the node too.
    const broken = fleet.agents.find((agent) => agent.node === BROKEN)!;
    broken.strategy.failing = () => false;
    broken.strategy.rollbackFailing = () => false;
    const reset = await call('POST', '/v1/orgs/acme/management-policies/third-fails/reset', {
      nodes: [BROKEN],
    });
    expect(reset.body).toEqual({ nmp: 'third-fails', nodes: [BROKEN], total: 1 });
    const resetAt = Date.now();
    await eventually(
      () => expect(fleet.versions()).toEqual({ '2.0.0': 9 - FAILING.length, '1.0.0': FAILING.length }),
      { timeoutMs: 60_000 },
    );
    await eventually(async () =>
      expect((await groups()).map((group) => group.state)).toEqual(['free', 'free', 'free']),
    );

    const spans = downSpans(fleet.timeline, new Map([[BROKEN, resetAt]]));
    expect(spans.filter((span) => span.to === Number.POSITIVE_INFINITY)).toEqual([]);
    for (const group of ['sim-group-1', 'sim-group-2', 'sim-group-3']) {
      const members = spans.filter((span) => span.haGroup === group).sort((a, b) => a.from - b.from);
      for (let i = 1; i < members.length; i++)
        expect(members[i]!.from).toBeGreaterThanOrEqual(members[i - 1]!.to);
    }
    // The failed members rolled back cleanly, and the broken one started again only after its reset.
    for (const node of FAILING) expect(await statusOf(node)).toBe('rolled-back');
    const brokenStarts = fleet.timeline.filter(
      (entry) => entry.node === BROKEN && entry.status === 'initiated',
    );
    expect(brokenStarts).toHaveLength(2);
    expect(brokenStarts[1]!.at.getTime()).toBeGreaterThanOrEqual(resetAt);
  }, 150_000);
});
