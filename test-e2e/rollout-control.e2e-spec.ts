/**
 * An operator steering an agent rollout through a fleet of simulated agents, against the real
 * exchange and agbot: disabling a policy is a barrier (no node starts a step after the disable
 * commits, read from the exchange's commit-ordered change feed), and a paused rollout resumed
 * over a window starts its remaining nodes spread over that window, not all at once.
 */
import { startSimulatedFleet, type SimulatedFleet } from '@careen/agent/src/index';
import { createLogger } from '@careen/telemetry';
import { eventually, seededRandom, useTestInfra } from '@careen/testing';
import { ORG_ADMIN, startRolloutHub, type RolloutHub } from './support/rollout-hub';

/** Statuses of a node that is busy; one stopped after its download rests at `downloaded`. */
const IN_PROGRESS = ['downloading', 'ha-waiting', 'initiated', 'failed', 'rolling-back'];

interface Change {
  id: number;
  resource: string;
  resourceId: string;
  event?: string;
  data?: { nmp?: string; status?: string; node?: string; enabled?: boolean };
}

describe('steering an agent rollout', () => {
  const infra = useTestInfra();
  let hub: RolloutHub;

  const call = (method: string, path: string, body?: unknown) => hub.call(method, path, body);
  const policyPath = (name: string) => `/v1/orgs/acme/management-policies/${name}`;
  const rollup = async (name: string) =>
    (await call('GET', `${policyPath(name)}/status`)).body as { counts: Record<string, number> };
  const head = async () => (await call('GET', '/v1/orgs/acme/changes/head')).body.lastId as number;

  /** Every change after `since` up to the feed's head when asked, in commit order. */
  async function changesSince(since: number): Promise<Change[]> {
    const until = await head();
    const all: Change[] = [];
    for (let cursor = since; cursor < until;) {
      const page = (await call('GET', `/v1/orgs/acme/changes?since=${cursor}&wait=0&limit=500`)).body as {
        changes: Change[];
        lastId: number;
      };
      // Every change up to the head is numbered and in the log: a page is never empty short of it.
      expect(page.changes.length > 0 || page.lastId >= until).toBe(true);
      all.push(...page.changes);
      cursor = page.lastId;
    }
    return all;
  }

  async function fleetOf(prefix: string, nodes: number, seed: number): Promise<SimulatedFleet> {
    const fleet = await startSimulatedFleet({
      exchangeUrl: hub.exchange.url,
      agbotUrl: hub.agbot.url,
      org: 'acme',
      admin: ORG_ADMIN,
      nodes,
      nodePrefix: prefix,
      initialVersion: '1.0.0',
      pollSeconds: 2,
      random: seededRandom(seed),
      logger: createLogger('rollout-control', { level: 'error' }),
    });
    // Stopped before the services and the infra go: its agents' long polls would hold them up.
    infra.track(() => fleet.stop());
    await eventually(() => expect(fleet.agents.every((agent) => agent.core.caughtUp)).toBe(true));
    return fleet;
  }

  beforeAll(async () => {
    hub = await startRolloutHub(infra);
  });

  afterAll(async () => {
    await hub?.close();
  });

  it('starts no step of a policy once its disable has committed', async () => {
    const fleet = await fleetOf('race', 24, 11);
    const since = await head();
    const policy = {
      nodes: fleet.agents.map((agent) => agent.node),
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 4 },
    };
    expect((await call('PUT', policyPath('racing'), policy)).status).toBe(201);
    // Disabled while agents are starting, as an operator who sees the first failures would.
    await eventually(() =>
      expect(fleet.timeline.filter((entry) => entry.status === 'downloading').length).toBeGreaterThanOrEqual(
        3,
      ),
    );
    expect((await call('PUT', policyPath('racing'), { ...policy, enabled: false })).status).toBe(200);
    await eventually(async () => {
      const { counts } = await rollup('racing');
      expect(IN_PROGRESS.filter((status) => counts[status])).toEqual([]);
    });

    // The feed shows the disable once its tail has it.
    const { changes, disabled } = await eventually(async () => {
      const read = await changesSince(since);
      const found = read.find(
        (change) =>
          change.resource === 'managementPolicy' &&
          change.resourceId === 'racing' &&
          change.data?.enabled === false,
      );
      expect(found?.event).toBe('disabled');
      return { changes: read, disabled: found! };
    });
    const startedLater = changes.filter(
      (change) =>
        change.id > disabled.id &&
        change.resource === 'managementStatus' &&
        change.data?.nmp === 'racing' &&
        (change.data.status === 'downloading' || change.data.status === 'initiated'),
    );
    expect(startedLater).toEqual([]);
    // Some agents had not started yet and did not: the rollout really stopped mid-way.
    expect(fleet.versions()['1.0.0']).toBeGreaterThan(0);
  });

  it('resumes a paused rollout over the window given, spreading the nodes left instead of starting them at once', async () => {
    const fleet = await fleetOf('paced', 12, 23);
    const policy = {
      nodes: fleet.agents.map((agent) => agent.node),
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 30 },
    };
    expect((await call('PUT', policyPath('paced'), policy)).status).toBe(201);
    await eventually(() => expect(fleet.versions()['2.0.0'] ?? 0).toBeGreaterThanOrEqual(1), {
      timeoutMs: 30_000,
    });
    expect((await call('POST', `${policyPath('paced')}/pause`, {})).body.state).toBe('paused');
    // Every node that had not started says it is paused; those installing finish.
    await eventually(async () => {
      const { counts } = await rollup('paced');
      expect(IN_PROGRESS.filter((status) => counts[status])).toEqual([]);
      expect((counts.paused ?? 0) + (counts.successful ?? 0)).toBe(12);
      expect(counts.paused).toBeGreaterThanOrEqual(5);
    });
    const left = fleet.agents.filter((agent) => agent.core.version === '1.0.0').map((agent) => agent.node);

    const resumed = (await call('POST', `${policyPath('paced')}/resume`, { window: 8 })).body;
    expect(resumed.resumeWindow).toMatchObject({ duration: 8 });
    const from = Date.parse(resumed.resumeWindow.start);
    await eventually(() => expect(fleet.versions()).toEqual({ '2.0.0': 12 }), { timeoutMs: 30_000 });

    const starts = left.map((node) => {
      const started = fleet.timeline.find(
        (entry) => entry.node === node && entry.status === 'initiated' && entry.at.getTime() >= from,
      );
      expect(started).toBeDefined();
      return started!.at.getTime() - from;
    });
    expect(Math.min(...starts)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...starts)).toBeLessThan(8_000 + 3_000);
    // Spread over the window: not a burst.
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThan(3_000);
  });
});
