/**
 * The rules of the semaphore as a grant applies them against Postgres: an agent upgrade
 * needs its whole group free (docs/architecture.md, invariant 1); a FleetLock reboot needs no agent upgrade
 * in the group and a free FleetLock slot; a holder asking again renews; a node's own slots never
 * block it; asking for another policy replaces the node's slot.
 */
import {
  UpgradeGranted,
  UpgradeGrantPayload,
  UpgradeReleased,
  UpgradeReleasedPayload,
  type UpgradeHolderKind,
} from '@careen/contracts';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { useTestInfra } from '@careen/testing';
import { type AcquireResult, UpgradeSemaphore } from './upgrade-semaphore';
import { UpgradeHub } from './upgrades.fixtures';

describe('the semaphore rules', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  let semaphore: UpgradeSemaphore;
  let group = 0;

  /** A fresh group of the given members, so each rule starts from a free group. */
  async function freshGroup(...members: string[]): Promise<string[]> {
    group++;
    const nodes = members.map((member) => `${member}-${group}`);
    await hub.seedNodes('acme', Object.fromEntries(nodes.map((node) => [node, `group-${group}`])));
    return nodes;
  }

  const ask = (
    node: string,
    kind: UpgradeHolderKind = 'agent-upgrade',
    fleetLockSlots = 1,
    managementPolicy: string | null = kind === 'agent-upgrade' ? 'nmp' : null,
  ): Promise<AcquireResult> =>
    semaphore.acquire({ org: 'acme', node, kind, managementPolicy, leaseSeconds: 120, fleetLockSlots });
  const outcome = async (result: Promise<AcquireResult>) => {
    const answer = await result;
    return answer.outcome === 'refused' ? `refused by ${answer.blocker.node}` : answer.outcome;
  };

  beforeAll(async () => {
    hub = await UpgradeHub.start(infra);
    await hub.startAgbot();
    semaphore = hub.agbots[0]!.app.get(UpgradeSemaphore);
  });

  afterAll(() => hub.close());

  it('grants an agent upgrade in a free group', async () => {
    const [a] = await freshGroup('a');
    expect(await outcome(ask(a!))).toBe('granted');
  });

  it('refuses an agent upgrade while any other member holds a slot, naming the earliest', async () => {
    const [a, b, c] = await freshGroup('a', 'b', 'c');
    expect(await outcome(ask(b!, 'fleetlock', 5))).toBe('granted');
    expect(await outcome(ask(c!, 'fleetlock', 5))).toBe('granted');
    expect(await outcome(ask(a!))).toBe(`refused by ${b}`);
  });

  it('renews the holder asking again for the same policy, keeping its grant time', async () => {
    const [a] = await freshGroup('a');
    const first = await ask(a!);
    const again = await ask(a!);
    expect(again.outcome).toBe('renewed');
    if (first.outcome !== 'granted' || again.outcome !== 'renewed') throw new Error('unexpected');
    expect(again.grant.grantedAt).toEqual(first.grant.grantedAt);
    expect(again.grant.leaseExpiresAt.getTime()).toBeGreaterThanOrEqual(first.grant.leaseExpiresAt.getTime());
  });

  it('replaces the holder slot when it asks for another policy', async () => {
    const [a, b] = await freshGroup('a', 'b');
    await ask(a!, 'agent-upgrade', 1, 'old');
    const replaced = await ask(a!, 'agent-upgrade', 1, 'new');
    expect(replaced).toMatchObject({ outcome: 'granted', grant: { managementPolicy: 'new' } });
    expect(await hub.history('acme', a!)).toEqual([
      { event: 'granted', reason: null },
      { event: 'released', reason: 'released' },
      { event: 'granted', reason: null },
    ]);
    expect(await outcome(ask(b!))).toBe(`refused by ${a}`);
  });

  it("never lets a node's own slot of the other kind block it", async () => {
    const [a, b] = await freshGroup('a', 'b');
    expect(await outcome(ask(a!, 'fleetlock'))).toBe('granted');
    expect(await outcome(ask(a!))).toBe('granted');
    expect(await outcome(ask(b!, 'fleetlock'))).toBe(`refused by ${a}`);
  });

  it('admits FleetLock holders up to the slots, and none during an agent upgrade', async () => {
    const [a, b, c] = await freshGroup('a', 'b', 'c');
    expect(await outcome(ask(b!, 'fleetlock', 2))).toBe('granted');
    expect(await outcome(ask(a!, 'fleetlock', 2))).toBe('granted');
    expect(await outcome(ask(c!, 'fleetlock', 2))).toBe(`refused by ${b}`);
    const [u, r] = await freshGroup('u', 'r');
    expect(await outcome(ask(u!))).toBe('granted');
    expect(await outcome(ask(r!, 'fleetlock', 5))).toBe(`refused by ${u}`);
  });

  it('admits nothing else beside a maintenance, and no maintenance beside anything', async () => {
    const [m, r, u] = await freshGroup('m', 'r', 'u');
    expect(await outcome(ask(m!, 'maintenance'))).toBe('granted');
    expect(await outcome(ask(r!, 'fleetlock', 5))).toBe(`refused by ${m}`);
    expect(await outcome(ask(u!))).toBe(`refused by ${m}`);
    await semaphore.release({ org: 'acme', node: m!, kind: 'maintenance' });
    expect(await outcome(ask(r!, 'fleetlock', 5))).toBe('granted');
    expect(await outcome(ask(m!, 'maintenance'))).toBe(`refused by ${r}`);
  });

  it('renews a FleetLock holder even when the slots are full (the protocol is recursive)', async () => {
    const [a, b] = await freshGroup('a', 'b');
    expect(await outcome(ask(a!, 'fleetlock'))).toBe('granted');
    expect(await outcome(ask(b!, 'fleetlock'))).toBe(`refused by ${a}`);
    expect(await outcome(ask(a!, 'fleetlock'))).toBe('renewed');
  });

  it('always grants a node outside any group, and answers unknown-node for a node it does not know', async () => {
    await hub.seedNodes('acme', { loner: null });
    expect(await ask('loner')).toMatchObject({ outcome: 'granted', grant: { haGroup: null } });
    expect(await outcome(ask('loner', 'fleetlock'))).toBe('granted');
    expect(await outcome(ask('nobody'))).toBe('unknown-node');
  });

  it('releases, on the way, a slot the node holds for a group it has left', async () => {
    const [a] = await freshGroup('a');
    await ask(a!);
    await hub.seedNodes('acme', { [a!]: 'somewhere-else' });
    expect(await ask(a!)).toMatchObject({ outcome: 'granted', grant: { haGroup: 'somewhere-else' } });
    expect((await hub.history('acme', a!)).map((event) => event.reason)).toEqual([null, 'left-group', null]);
  });

  it('writes each grant and release to the outbox as its typed event, on its subject', async () => {
    const [a] = await freshGroup('a');
    const granted = await ask(a!);
    await semaphore.release({ org: 'acme', node: a!, kind: 'agent-upgrade' });
    const rows: { subject: string; type: string; payload: object }[] = await hub.dataSource.query(
      `SELECT subject, type, payload FROM agbot.outbox WHERE payload ->> 'node' = $1 ORDER BY id`,
      [a],
    );
    expect(rows.map((row) => [row.subject, row.type])).toEqual([
      [UpgradeGranted.subject('acme', a!), UpgradeGranted.type],
      [UpgradeReleased.subject('acme', a!), UpgradeReleased.type],
    ]);
    const strict = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true };
    expect(validateSync(plainToInstance(UpgradeGrantPayload, rows[0]!.payload), strict)).toEqual([]);
    expect(validateSync(plainToInstance(UpgradeReleasedPayload, rows[1]!.payload), strict)).toEqual([]);
    if (granted.outcome !== 'granted') throw new Error(`not granted: ${granted.outcome}`);
    const expected = {
      org: 'acme',
      node: a,
      haGroup: granted.grant.haGroup,
      holder: 'agent-upgrade',
      managementPolicy: 'nmp',
      grantedAt: granted.grant.grantedAt.toISOString(),
      leaseExpiresAt: granted.grant.leaseExpiresAt.toISOString(),
    };
    expect(rows[0]!.payload).toEqual(expected);
    expect(rows[1]!.payload).toEqual({ ...expected, reason: 'released', releasedAt: expect.any(String) });
  });
});
