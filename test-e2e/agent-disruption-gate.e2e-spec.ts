/**
 * Agents outside any HA group pass the disruption gate too: a fleet of simulated agents against
 * the real exchange and agbot, one node under a freeze, the other free. The free one upgrades;
 * the frozen one waits, its status saying why, and upgrades once the freeze is removed.
 */
import { startSimulatedFleet } from '@careen/agent/src/index';
import { createLogger } from '@careen/telemetry';
import { eventually, seededRandom, useTestInfra } from '@careen/testing';
import { ORG_ADMIN, startRolloutHub, type RolloutHub } from './support/rollout-hub';

describe('an ungrouped agent and the disruption gate', () => {
  const infra = useTestInfra();
  let hub: RolloutHub;

  const statusOf = async (node: string) =>
    (await hub.call('GET', `/v1/orgs/acme/nodes/${node}/managementStatus/lift`)).body as {
      status?: string;
      error?: string;
    };

  beforeAll(async () => {
    hub = await startRolloutHub(infra);
  });

  afterAll(async () => {
    await hub?.close();
  });

  it('waits out a freeze, saying so, while a node the freeze does not cover upgrades', async () => {
    const fleet = await startSimulatedFleet({
      exchangeUrl: hub.exchange.url,
      agbotUrl: hub.agbot.url,
      org: 'acme',
      admin: ORG_ADMIN,
      nodes: 2,
      nodePrefix: 'lone',
      initialVersion: '1.0.0',
      pollSeconds: 2,
      random: seededRandom(7),
      logger: createLogger('agent-disruption-gate', { level: 'error' }),
    });
    infra.track(() => fleet.stop());
    await eventually(() => expect(fleet.agents.every((agent) => agent.core.caughtUp)).toBe(true));
    const [frozen, free] = fleet.agents.map((agent) => agent.node) as [string, string];

    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect(
      (
        await hub.call('PUT', '/v1/orgs/acme/freezes/hold', {
          selector: { nodes: [frozen] },
          from: new Date(Date.now() - 60_000).toISOString(),
          until,
        })
      ).status,
    ).toBe(201);
    // The agbot has it once its outlook of the node says so.
    await eventually(async () => {
      const outlook = await fetch(`${hub.agbot.url}/v1/orgs/acme/nodes/${frozen}/disruption`, {
        headers: {
          authorization: `Basic ${Buffer.from(`acme/${ORG_ADMIN.username}:${ORG_ADMIN.password}`).toString('base64')}`,
        },
      });
      expect(((await outlook.json()) as { mayStart: boolean }).mayStart).toBe(false);
    });

    const policy = {
      nodes: [frozen, free],
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 1 },
    };
    expect((await hub.call('PUT', '/v1/orgs/acme/management-policies/lift', policy)).status).toBe(201);
    await eventually(async () => expect((await statusOf(free)).status).toBe('successful'), {
      timeoutMs: 30_000,
    });
    await eventually(async () =>
      expect(await statusOf(frozen)).toMatchObject({
        status: 'ha-waiting',
        error: expect.stringContaining(`freeze "hold" until ${until}`),
      }),
    );

    expect((await hub.call('DELETE', '/v1/orgs/acme/freezes/hold')).status).toBe(204);
    await eventually(async () => expect((await statusOf(frozen)).status).toBe('successful'), {
      timeoutMs: 45_000,
    });
  });
});
