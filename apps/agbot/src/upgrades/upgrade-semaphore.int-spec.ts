/**
 * The semaphore under time and load, on two agbot replicas sharing one database: leases end
 * grants of holders that stop renewing, and many concurrent requesters across many groups never
 * see two holders in one group at any instant (docs/architecture.md, invariant 1), checked by
 * replaying the grant history. Time passes for a lease when the test turns it back
 * (UpgradeHub.passLeaseTime), never by sleeping: a lease is long enough that no request, however
 * slow the machine, outlives one by accident.
 */
import { type UpgradeReleaseReason } from '@careen/contracts';
import {
  eventually,
  http,
  seededRandom,
  useTestInfra,
  type Credentials,
  type HttpResult,
} from '@careen/testing';
import { DataSource } from 'typeorm';
import { UpgradeMonitor } from './upgrade-monitor';
import { findViolations } from './upgrade-timeline';
import { statusChangeData, UpgradeHub } from './upgrades.fixtures';

const LEASE_SECONDS = 60;
/**
 * The sweeper looks four times per shortest lease: a short FleetLock lease (no FleetLock slot is
 * taken here) has it look every half second.
 */
const FLEETLOCK_LEASE_SECONDS = 2;

describe('the upgrade semaphore over time and under load', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  const tokens = new Map<string, Credentials>();

  async function tokenOf(node: string): Promise<Credentials> {
    if (!tokens.has(node)) tokens.set(node, await hub.nodeToken('acme', node));
    return tokens.get(node)!;
  }
  const upgrade = async (node: string, replica = 0, managementPolicy = 'agents-2'): Promise<HttpResult> =>
    http(hub.agbots[replica]!.url, 'POST', `/v1/orgs/acme/nodes/${node}/upgrade`, {
      auth: await tokenOf(node),
      body: { managementPolicy },
    });
  const release = async (node: string, replica = 0): Promise<HttpResult> =>
    http(hub.agbots[replica]!.url, 'DELETE', `/v1/orgs/acme/nodes/${node}/upgrade`, {
      auth: await tokenOf(node),
    });
  async function holders(): Promise<{ node: string }[]> {
    const auth = await hub.token({ kind: 'user', org: 'acme', username: 'ada', role: 'operator' });
    const listed = await http(hub.agbots[0]!.url, 'GET', '/v1/orgs/acme/upgrades', { auth });
    expect(listed.status).toBe(200);
    return listed.body.items;
  }

  beforeAll(async () => {
    hub = await UpgradeHub.start(infra);
    const env = {
      CAREEN_UPGRADE_LEASE_SECONDS: String(LEASE_SECONDS),
      CAREEN_FLEETLOCK_LEASE_SECONDS: String(FLEETLOCK_LEASE_SECONDS),
    };
    await hub.startAgbot(env);
    await hub.startAgbot(env);
    await hub.seedNodes('acme', { h1: 'lease', h2: 'lease', q1: 'quiet', k1: 'keep', k2: 'keep' });
  });

  afterAll(() => hub.close());

  it('ends the grant of a holder that stops renewing at its lease, and a peer then gets it', async () => {
    const granted = await upgrade('h1');
    expect(granted.status).toBe(200);
    expect(Date.parse(granted.body.leaseExpiresAt) - Date.parse(granted.body.grantedAt)).toBe(
      LEASE_SECONDS * 1000,
    );
    // With ten seconds of its lease left the silent holder still has the group; then it has none.
    await hub.passLeaseTime('acme', 'h1', LEASE_SECONDS - 10);
    expect((await upgrade('h2', 1)).status).toBe(409);
    await hub.passLeaseTime('acme', 'h1', 10);
    expect((await upgrade('h2', 1)).status).toBe(200);
    expect(await hub.history('acme', 'h1')).toEqual([
      { event: 'granted', reason: null },
      { event: 'released', reason: 'lease-expired' },
    ]);
    expect((await release('h2')).status).toBe(204);
  });

  it('sweeps an expired grant even when nobody else asks', async () => {
    expect((await upgrade('q1')).status).toBe(200);
    await hub.passLeaseTime('acme', 'q1', LEASE_SECONDS);
    await eventually(async () => {
      expect(await hub.history('acme', 'q1')).toEqual([
        { event: 'granted', reason: null },
        { event: 'released', reason: 'lease-expired' },
      ]);
    });
    expect((await holders()).map((holder) => holder.node)).not.toContain('q1');
  });

  it('keeps the grant of a holder that renews every lease/3, across several leases', async () => {
    const first = await upgrade('k1');
    expect(first.status).toBe(200);
    // Three leases go by a third at a time, and the agent asks again after each third, as it
    // does while it works: without its renewals the grant would have lapsed after the third.
    for (let third = 1; third <= 9; third++) {
      await hub.passLeaseTime('acme', 'k1', LEASE_SECONDS / 3);
      const renewed = await upgrade('k1', 1);
      expect({ third, status: renewed.status }).toEqual({ third, status: 200 });
      expect(renewed.body.grantedAt).toBe(first.body.grantedAt);
      expect((await upgrade('k2')).status).toBe(409);
    }
    expect(await hub.history('acme', 'k1')).toEqual([{ event: 'granted', reason: null }]);
    expect((await release('k1')).status).toBe(204);
  });

  it('never has two holders in one group, with many requesters on two replicas', async () => {
    const groups = 30;
    const perGroup = 5;
    const nodes: Record<string, string | null> = {};
    for (let g = 0; g < groups; g++) for (let m = 0; m < perGroup; m++) nodes[`g${g}-n${m}`] = `g${g}`;
    for (let i = 0; i < 10; i++) nodes[`free${i}`] = null;
    await hub.seedNodes('acme', nodes);
    const ids = Object.keys(nodes);
    // Seeded, so a failing mix can be told again; the interleaving is still the machine's.
    const random = seededRandom(1764);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const replica = () => Math.floor(random() * 2);
    const tally = { granted: 0, refused: 0, other: 0 };
    const driven = new Set<string>();

    async function statusTurnsTerminal(node: string): Promise<void> {
      const agbot = pick(hub.agbots);
      await agbot.app.get(DataSource).transaction((manager) =>
        agbot.app.get(UpgradeMonitor).onChange(
          {
            org: 'acme',
            resource: 'managementStatus',
            resourceId: node,
            operation: 'updated',
            changedAt: new Date().toISOString(),
            data: statusChangeData('acme', node, 'agents-2', pick(['successful', 'rolled-back'] as const)),
          },
          manager,
        ),
      );
      agbot.app.get(UpgradeMonitor).afterCommit();
    }

    async function requester(): Promise<void> {
      for (let i = 0; i < 40; i++) {
        // Each node is driven by one requester at a time, as one agent drives its node.
        const node = pick(ids.filter((id) => !driven.has(id)));
        driven.add(node);
        try {
          await driveOnce(node);
        } finally {
          driven.delete(node);
        }
      }
    }

    async function driveOnce(node: string): Promise<void> {
      const answer = await upgrade(node, replica());
      if (answer.status === 409) tally.refused++;
      else if (answer.status === 200) tally.granted++;
      else tally.other++;
      if (answer.status !== 200) return;
      const ending = random();
      if (ending < 0.5) await release(node, replica());
      else if (ending < 0.7) {
        expect((await upgrade(node, replica())).status).toBe(200);
        await release(node);
      } else if (ending < 0.9) await statusTurnsTerminal(node);
      // The holder goes silent and its lease runs out: a peer's grant or the sweep releases it.
      else await hub.passLeaseTime('acme', node, LEASE_SECONDS);
    }

    await Promise.all(Array.from({ length: 40 }, () => requester()));
    expect(tally.other).toBe(0);
    expect(tally.granted).toBeGreaterThan(100);
    expect(tally.refused).toBeGreaterThan(0);
    await eventually(async () => expect(await holders()).toEqual([]), { timeoutMs: 15_000 });

    const timeline = await hub.timeline();
    expect(findViolations(timeline, 1)).toEqual([]);
    const reasons = new Set(timeline.map((event) => event.reason).filter(Boolean) as UpgradeReleaseReason[]);
    expect([...reasons].sort()).toEqual(['lease-expired', 'released', 'terminal-status']);
    expect(timeline.filter((event) => event.event === 'granted')).toHaveLength(
      timeline.filter((event) => event.event === 'released').length,
    );
  });
});
