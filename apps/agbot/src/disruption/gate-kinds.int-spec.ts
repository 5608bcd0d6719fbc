/**
 * One gate for every kind (invariant 9): each kind of disruption control — a freeze, a closed
 * window, a busy declaration, an alert gate, a soak, a budget — refuses each kind of disruption
 * the agbot grants — an agent upgrade (which strategy rollouts and single-node upgrades are made
 * of), a maintenance slot, a FleetLock reboot — and each client reads the reason in its answer.
 */
import { http, useTestInfra, type Credentials } from '@careen/testing';
import { UpgradeHub } from '../upgrades/upgrades.fixtures';

const ORG = 'fleet';
const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

interface Case {
  reason: string;
  /** What the refusal's message and FleetLock's value say. */
  says: string;
  /** Puts the control over `nodes` (and whatever else it needs). */
  setUp(nodes: string[]): Promise<void>;
}

describe('every disruption control refuses every kind of disruption', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  let admin: Credentials;
  const url = () => hub.agbots[0]!.url;
  const upgrade = async (node: string) =>
    http(url(), 'POST', `/v1/orgs/${ORG}/nodes/${node}/upgrade`, {
      auth: await hub.nodeToken(ORG, node),
      body: { managementPolicy: 'agents-2' },
    });
  const control = (
    kind: 'window' | 'freeze' | 'budget' | 'gate',
    name: string,
    data: Record<string, unknown>,
  ) => hub.seedResource(ORG, kind, name, data);

  const cases: Record<string, Case> = {
    freeze: {
      reason: 'freeze',
      says: 'freeze "k-freeze" until',
      setUp: (nodes) =>
        control('freeze', 'k-freeze', {
          selector: { nodes },
          from: new Date(Date.now() - 60_000).toISOString(),
          until: new Date(Date.now() + 3_600_000).toISOString(),
        }),
    },
    window: {
      reason: 'outside-window',
      says: 'outside window "k-window"',
      setUp: (nodes) =>
        control('window', 'k-window', {
          selector: { nodes },
          days: EVERY_DAY,
          start: new Date(Date.now() + 6 * 3_600_000).toISOString().slice(11, 16),
          durationMinutes: 60,
          cutoffMinutes: 0,
          timeZone: 'UTC',
        }),
    },
    busy: {
      reason: 'busy',
      says: 'the node is busy until',
      setUp: async (nodes) => {
        for (const node of nodes) {
          const declared = await http(url(), 'PUT', `/v1/orgs/${ORG}/nodes/${node}/busy`, {
            auth: admin,
            body: { reason: 'a restore', seconds: 3600 },
          });
          expect(declared.status).toBe(200);
        }
      },
    },
    gate: {
      reason: 'gate',
      says: 'gate "k-gate" is closed: Prometheus at http://unlisted.example:9090 cannot be asked',
      setUp: (nodes) =>
        control('gate', 'k-gate', {
          selector: { nodes },
          prometheusUrl: 'http://unlisted.example:9090',
          matchers: ['alertname="NodeDown"'],
          scope: 'node',
        }),
    },
    soak: {
      reason: 'soak',
      says: 'gate "k-soak" waits 600 s of quiet',
      setUp: async (nodes) => {
        // Open while its Prometheus cannot be asked: only the soak of the step before holds.
        await control('gate', 'k-soak', {
          selector: { nodes: [...nodes, 'soak-before'] },
          prometheusUrl: 'http://unlisted.example:9090',
          matchers: ['alertname="NodeDown"'],
          scope: 'all',
          onUnavailable: 'open',
          soakSeconds: 600,
        });
        expect((await upgrade('soak-before')).status).toBe(200);
        const released = await http(url(), 'DELETE', `/v1/orgs/${ORG}/nodes/soak-before/upgrade`, {
          auth: await hub.nodeToken(ORG, 'soak-before'),
        });
        expect(released.status).toBe(204);
      },
    },
    budget: {
      reason: 'budget',
      says: 'budget "k-budget"',
      setUp: async (nodes) => {
        await control('budget', 'k-budget', {
          selector: { nodes: [...nodes, 'budget-holder'] },
          maxUnavailable: 1,
        });
        const held = await http(url(), 'POST', `/v1/orgs/${ORG}/nodes/budget-holder/maintenance-slot`, {
          auth: admin,
          body: { leaseSeconds: 600 },
        });
        expect(held.status).toBe(200);
      },
    },
  };

  beforeAll(async () => {
    hub = await UpgradeHub.start(infra);
    await hub.startAgbot({ CAREEN_FLEETLOCK_ORG: ORG });
    admin = await hub.userToken(ORG, 'ada', 'orgAdmin');
    await hub.seedManagementPolicy(ORG, 'agents-2', { enabled: true });
    await hub.seedNodes(ORG, {
      ...Object.fromEntries(
        Object.keys(cases).flatMap((name) => ['up', 'mt', 'fl'].map((kind) => [`${name}-${kind}`, null])),
      ),
      'soak-before': null,
      'budget-holder': null,
    });
  });

  afterAll(() => hub.close());

  it.each(Object.keys(cases))(
    '%s: the agent, the maintenance service and FleetLock read why',
    async (name) => {
      const { reason, says, setUp } = cases[name]!;
      await setUp([`${name}-up`, `${name}-mt`, `${name}-fl`]);

      const upgraded = await upgrade(`${name}-up`);
      expect([upgraded.status, upgraded.body.details?.code, upgraded.body.details?.reason]).toEqual([
        409,
        'DISRUPTION_GATED',
        reason,
      ]);
      expect(upgraded.body.message).toContain(says);

      const slot = await http(url(), 'POST', `/v1/orgs/${ORG}/nodes/${name}-mt/maintenance-slot`, {
        auth: admin,
        body: { leaseSeconds: 60 },
      });
      expect([slot.status, slot.body.details?.reason]).toEqual([409, reason]);
      expect(slot.body.message).toContain(says);

      const reboot = await http(url(), 'POST', '/v1/pre-reboot', {
        body: { client_params: { id: `${name}-fl`, group: 'default' } },
        headers: { 'fleet-lock-protocol': 'true' },
      });
      expect(reboot.status).toBe(409);
      expect(reboot.body).toEqual({
        kind: 'failed_lock_disruption_gated',
        value: expect.stringMatching(new RegExp(`^reboot not allowed now: .*${escape(says)}`)),
      });
    },
  );

  it('shows what each reason holds back now', async () => {
    const metrics = String((await http(url(), 'GET', '/metrics')).body);
    for (const { reason } of Object.values(cases))
      for (const holder of ['agent-upgrade', 'maintenance', 'fleetlock'])
        expect(metrics).toContain(
          `careen_disruption_blocked{holder="${holder}",reason="${reason}",service="agbot"} 1`,
        );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
