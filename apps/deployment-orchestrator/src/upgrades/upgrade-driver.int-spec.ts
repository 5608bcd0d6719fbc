/**
 * The single-node upgrade driver on a real Postgres, with a scripted exchange: an upgrade is
 * sent once even when the exchange fails the first time, started from when its policy is in
 * place, followed to its end, and then frees its node and has its policy removed; one the
 * exchange refuses ends failed, saying why.
 */
import { useTestInfra } from '@careen/testing';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { upgradeHolder } from '../rollouts/rollout-record';
import { claimNodes } from '../rollouts/rollout-store';
import { commandsOf, ORCHESTRATOR_SCHEMA, orchestratorDataSource } from '../testing/orchestrator-database';
import { ScriptedFleet } from '../testing/scripted-fleet';
import { upgradeRecord } from '../testing/upgrade-fixture';
import { UpgradeDriver } from './upgrade-driver';
import { type UpgradeRecord, UpgradeStore } from './upgrade-store';

describe('the single-node upgrade driver', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  let store: UpgradeStore;

  beforeAll(async () => {
    dataSource = await orchestratorDataSource(infra.databaseUrl);
    store = new UpgradeStore(dataSource);
  });

  afterAll(() => dataSource?.destroy());

  async function requested(overrides: Partial<UpgradeRecord> = {}): Promise<UpgradeRecord> {
    const id = randomUUID();
    const upgrade = upgradeRecord(id, new Date(), { org: `org-${id.slice(0, 8)}`, ...overrides });
    await store.transaction(async (manager) => {
      await claimNodes(manager, upgrade.org, [upgrade.node_id], upgradeHolder(id));
      await store.insert(manager, upgrade);
    });
    return upgrade;
  }

  const claimsOf = (id: string) =>
    dataSource.query(`SELECT node FROM ${ORCHESTRATOR_SCHEMA}.node_claims WHERE holder = $1`, [
      upgradeHolder(id),
    ]);

  it('sends once, follows the agent to a success, then frees the node and removes the policy', async () => {
    const upgrade = await requested();
    const fleet = new ScriptedFleet();
    const driver = new UpgradeDriver(store, fleet, 600);

    fleet.failNext.add('ensure');
    await expect(driver.drive(upgrade.id)).rejects.toThrow(/did not answer the ensure/);
    expect(await store.get(upgrade.id)).toMatchObject({ started_at: null });
    expect(await driver.drive(upgrade.id)).toBe(true);
    const started = (await store.get(upgrade.id))!;
    expect(started.started_at).toBeInstanceOf(Date);

    fleet.statusesOf.set(upgrade.policy, [
      { node: 'mon01', status: 'initiated', version: null, error: null },
    ]);
    expect(await driver.drive(upgrade.id)).toBe(false);
    expect(await store.get(upgrade.id)).toMatchObject({ state: 'installing', status: 'initiated' });

    fleet.statusesOf.set(upgrade.policy, [
      { node: 'mon01', status: 'successful', version: null, error: null },
    ]);
    fleet.running.set('mon01', '2.0.0');
    expect(await driver.drive(upgrade.id)).toBe(true);
    expect(await store.get(upgrade.id)).toMatchObject({
      state: 'success',
      status: 'successful',
      error: null,
    });
    expect(await claimsOf(upgrade.id)).toEqual([]);
    expect(fleet.policies.has(upgrade.policy)).toBe(false);

    expect(await driver.drive(upgrade.id)).toBe(true);
    expect((await store.unfinished()).map((each) => each.id)).not.toContain(upgrade.id);
    expect(fleet.changes()).toEqual([
      `ensure ${upgrade.policy}`,
      `ensure ${upgrade.policy}`,
      `remove ${upgrade.policy}`,
    ]);
    expect(await commandsOf(dataSource, upgradeHolder(upgrade.id))).toEqual([
      {
        kind: 'ensure-policy',
        policy: upgrade.policy,
        done: true,
        attempts: 2,
        last_error: expect.any(String),
      },
      { kind: 'remove-policy', policy: upgrade.policy, done: true, attempts: 1, last_error: null },
    ]);
  });

  it('sends an allowed downgrade with the flag on its policy, and ends it a success once the node runs the lower version', async () => {
    const upgrade = await requested({ from_version: '2.0.0', to_version: '1.0.0', allow_downgrade: true });
    expect(await store.get(upgrade.id)).toMatchObject({ allow_downgrade: true });
    const fleet = new ScriptedFleet();
    fleet.running.set('mon01', '2.0.0');
    const driver = new UpgradeDriver(store, fleet, 600);

    expect(await driver.drive(upgrade.id)).toBe(true);
    expect(fleet.policies.get(upgrade.policy)).toMatchObject({
      nodes: ['mon01'],
      version: '1.0.0',
      action: 'install',
      allowDowngrade: true,
    });
    expect(await driver.drive(upgrade.id)).toBe(true);
    fleet.statusesOf.set(upgrade.policy, [
      { node: 'mon01', status: 'successful', version: '1.0.0', error: null },
    ]);
    // The agent's word comes before the node's own report: it is waited for.
    expect(await driver.drive(upgrade.id)).toBe(false);
    expect(await store.get(upgrade.id)).toMatchObject({ state: 'installing', finished_at: null });
    fleet.running.set('mon01', '1.0.0');
    expect(await driver.drive(upgrade.id)).toBe(true);
    expect(await store.get(upgrade.id)).toMatchObject({ state: 'success', error: null });
  });

  it('sends an upgrade that was not allowed to go down without the flag', async () => {
    const upgrade = await requested();
    const fleet = new ScriptedFleet();
    await new UpgradeDriver(store, fleet, 600).drive(upgrade.id);
    expect(fleet.policies.get(upgrade.policy)).not.toHaveProperty('allowDowngrade');
  });

  it('ends an upgrade the exchange refuses as failed, saying why, and frees its node', async () => {
    const upgrade = await requested();
    const fleet = new ScriptedFleet();
    const driver = new UpgradeDriver(store, fleet, 600);
    fleet.refusing.set(upgrade.policy, 'no agent package of version "2.0.0" is published');

    expect(await driver.drive(upgrade.id)).toBe(true);
    expect(await driver.drive(upgrade.id)).toBe(true);
    const ended = (await store.get(upgrade.id))!;
    expect(ended).toMatchObject({
      state: 'failed',
      started_at: null,
      error: 'the exchange refused it: no agent package of version "2.0.0" is published',
    });
    expect(ended.finished_at).toBeInstanceOf(Date);
    expect(await claimsOf(upgrade.id)).toEqual([]);
    expect(await driver.drive(upgrade.id)).toBe(true);
    expect((await store.unfinished()).map((each) => each.id)).not.toContain(upgrade.id);
  });
});
