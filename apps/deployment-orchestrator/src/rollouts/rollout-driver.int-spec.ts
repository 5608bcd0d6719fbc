/**
 * The rollout driver on a real Postgres. An exchange that accepts requests and never answers
 * holds up the driver's look at a rollout, but not the rollout: meanwhile its row can be taken
 * at once by another transaction and an operator can pause it. What a step stored and the
 * exchange did not take is carried out by the next look, once and in order behind what came
 * before it; a cancel pauses the phase first, waits for the nodes in the middle of a step, then
 * removes its policy and gives the nodes back.
 */
import { OutboxWriter } from '@careen/persistence';
import { AuditTrail, ExchangeClient } from '@careen/service';
import { useTestInfra, withClient } from '@careen/testing';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type DataSource } from 'typeorm';
import { FleetGateway, type PolicyStatus } from '../fleet/fleet-gateway';
import { StrategyStore } from '../strategies/strategy-store';
import { commandsOf, ORCHESTRATOR_SCHEMA, orchestratorDataSource } from '../testing/orchestrator-database';
import { fixtureRollout } from '../testing/rollout-fixture';
import { ScriptedFleet } from '../testing/scripted-fleet';
import { RolloutDriver } from './rollout-driver';
import { RolloutEngine } from './rollout-engine';
import { RolloutEvents } from './rollout-events';
import { rolloutHolder, type RolloutRecord } from './rollout-record';
import { claimNodes, RolloutStore } from './rollout-store';
import { Rollouts } from './rollouts';

describe('the rollout driver', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  let store: RolloutStore;
  let events: RolloutEvents;
  let audit: AuditTrail;

  beforeAll(async () => {
    dataSource = await orchestratorDataSource(infra.databaseUrl);
    store = new RolloutStore(dataSource);
    const outbox = new OutboxWriter(ORCHESTRATOR_SCHEMA);
    events = new RolloutEvents(outbox);
    audit = new AuditTrail(outbox, 'deployment-orchestrator');
  });

  afterAll(() => dataSource?.destroy());

  const operator = (fleet: FleetGateway) =>
    new Rollouts(store, new StrategyStore(dataSource, audit), fleet, events);

  /** A new rollout of the fixture in an org of its own, holding its nodes; `sent`: its first phase already sent. */
  async function started(sent = false): Promise<RolloutRecord> {
    const now = new Date();
    const record = fixtureRollout({
      id: randomUUID(),
      org: `org-${randomUUID().slice(0, 8)}`,
      createdAt: now,
    });
    if (sent) new RolloutEngine(record.document, record.plan.groups).next(record.progress, now);
    await store.transaction(async (manager) => {
      await claimNodes(manager, record.org, Object.keys(record.progress.nodes), rolloutHolder(record.id));
      await store.insert(manager, record);
    });
    return record;
  }

  const policy = (record: RolloutRecord, name: string) => `rollout-${record.id.slice(0, 8)}-${name}`;
  const answered = (status: string, ...nodes: string[]): PolicyStatus[] =>
    nodes.map((node) => ({ node, status, version: null, error: null }));

  /** Takes the rollout's row in a transaction of its own without waiting: refused while another holds it. */
  const lockAtOnce = (id: string) =>
    withClient(infra.databaseUrl, async (client) => {
      await client.query('BEGIN');
      try {
        const locked = await client.query(
          `SELECT id FROM ${ORCHESTRATOR_SCHEMA}.rollouts WHERE id = $1 FOR UPDATE NOWAIT`,
          [id],
        );
        return locked.rowCount;
      } finally {
        await client.query('ROLLBACK');
      }
    });

  const eventsOf = async (id: string): Promise<string[]> =>
    (
      await dataSource.query(
        `SELECT payload->>'event' AS event FROM ${ORCHESTRATOR_SCHEMA}.outbox WHERE payload->>'rollout_id' = $1 ORDER BY id`,
        [id],
      )
    ).map((row: { event: string }) => row.event);

  describe('with an exchange that accepts requests and never answers', () => {
    let exchange: Server;
    let asked: Promise<void>;

    beforeEach(async () => {
      exchange = createServer(() => undefined);
      asked = new Promise((arrived) => exchange.once('request', () => arrived()));
      await new Promise<void>((listening) => exchange.listen(0, '127.0.0.1', listening));
    });

    afterEach(async () => {
      exchange.closeAllConnections();
      await new Promise((closed) => exchange.close(closed));
    });

    it.each([
      ['creating the policy of the phase it sends', false],
      ['reading the statuses of the phase under way', true],
    ])('leaves the rollout free while it waits on %s', async (_waiting, sent) => {
      const record = await started(sent);
      const url = `http://127.0.0.1:${(exchange.address() as AddressInfo).port}`;
      const fleet = new FleetGateway(
        new ExchangeClient(url, { org: 'root', username: 'root', password: 'never-checked' }),
      );
      const look = new RolloutDriver(store, fleet, events).drive(record.id).then(
        () => 'answered',
        (error: unknown) => `failed: ${String(error)}`,
      );

      await asked;
      expect(await lockAtOnce(record.id)).toBe(1);
      expect((await operator(fleet).pause(record.id)).state).toBe('paused');
      expect(await Promise.race([look, 'still waiting'])).toBe('still waiting');

      // Once the exchange goes away the look fails, leaving what it must still ask to the next.
      exchange.close();
      exchange.closeAllConnections();
      expect(await look).toMatch(/^failed: /);
      const stored = await store.get(record.id);
      expect(stored).toMatchObject({ state: 'paused' });
      expect(stored!.progress.groups.first).toMatchObject({
        phase: 'preparing',
        sent: { prepare: ['a1', 'a2'] },
      });
      const prepare = policy(record, '0-prepare');
      expect(await commandsOf(dataSource, rolloutHolder(record.id))).toEqual([
        ...(sent
          ? []
          : [
              {
                kind: 'ensure-policy',
                policy: prepare,
                done: false,
                attempts: 1,
                last_error: expect.any(String),
              },
            ]),
        { kind: 'set-paused', policy: prepare, done: false, attempts: 0, last_error: null },
      ]);
    });
  });

  it('carries out on the next look, once and in order, what a step stored and the exchange did not take', async () => {
    const record = await started();
    const fleet = new ScriptedFleet();
    const driver = new RolloutDriver(store, fleet, events);
    const [prepare, deploy] = [policy(record, '0-prepare'), policy(record, '0-deploy')];

    fleet.failNext.add('ensure');
    await expect(driver.drive(record.id)).rejects.toThrow(
      `the exchange did not answer the ensure of ${prepare}`,
    );
    expect((await store.get(record.id))!.progress.groups.first).toMatchObject({ phase: 'preparing' });
    // An operator's pause and resume meanwhile wait behind the policy's creation.
    await operator(fleet).pause(record.id);
    await operator(fleet).resume(record.id);
    expect(await driver.drive(record.id)).toBe(true);
    expect(fleet.changes()).toEqual([
      `ensure ${prepare}`,
      `ensure ${prepare}`,
      `pause ${prepare}`,
      `resume ${prepare}`,
    ]);

    fleet.statusesOf.set(prepare, answered('downloading', 'a1', 'a2'));
    expect(await driver.drive(record.id)).toBe(false);
    fleet.statusesOf.set(prepare, answered('downloaded', 'a1', 'a2'));
    expect(await driver.drive(record.id)).toBe(true);
    expect(fleet.changes().slice(4)).toEqual([`remove ${prepare}`, `ensure ${deploy}`]);
    expect(fleet.policies.get(deploy)).toMatchObject({ nodes: ['a1', 'a2'], action: 'install' });
    expect(await commandsOf(dataSource, rolloutHolder(record.id))).toEqual(
      ['ensure-policy', 'set-paused', 'set-paused', 'remove-policy', 'ensure-policy'].map((kind) =>
        expect.objectContaining({ kind, done: true }),
      ),
    );
    expect(await eventsOf(record.id)).toEqual(['started', 'paused', 'resumed', 'prepared']);
    const { groups, nodes } = (await store.get(record.id))!.progress;
    expect(groups.first).toMatchObject({
      phase: 'deploying',
      sent: { prepare: ['a1', 'a2'], deploy: ['a1', 'a2'] },
    });
    expect([nodes.a1!.state, nodes.a2!.state, nodes.b1!.state]).toEqual([
      'prepared',
      'prepared',
      'not started',
    ]);
  });

  it('refuses a rollout below the version its nodes run, naming them, and sends one allowed to go down with the flag', async () => {
    const org = `org-${randomUUID().slice(0, 8)}`;
    const fleet = new ScriptedFleet();
    for (const [node, version] of [
      ['a1', '2.0.0'],
      ['a2', '1.0.0'],
      ['b1', '2.0.0'],
    ] as const)
      fleet.running.set(node, version);
    await new StrategyStore(dataSource, audit).publish(org, fixtureRollout().document, 'acme/admin');
    const request = { strategy: 'two-step', version: '1.0.0' };

    const refused = operator(fleet).start(org, 'acme/admin', request);
    await expect(refused).rejects.toMatchObject({
      kind: 'conflict',
      code: 'orchestrator.downgrade-refused',
      message:
        '1.0.0 is below the agent version 2 node(s) of the rollout run: node "a1" runs 2.0.0, node "b1" runs 2.0.0; ' +
        'start it with allow_downgrade to take them down to it',
      details: {
        version: '1.0.0',
        nodes: [
          { node_id: 'a1', running: '2.0.0' },
          { node_id: 'b1', running: '2.0.0' },
        ],
      },
    });
    expect(
      await dataSource.query(`SELECT 1 FROM ${ORCHESTRATOR_SCHEMA}.rollouts WHERE org = $1`, [org]),
    ).toEqual([]);
    expect(
      await dataSource.query(`SELECT node FROM ${ORCHESTRATOR_SCHEMA}.node_claims WHERE org = $1`, [org]),
    ).toEqual([]);

    const started = await operator(fleet).start(org, 'acme/admin', { ...request, allow_downgrade: true });
    expect(started).toMatchObject({ version: '1.0.0', allow_downgrade: true, state: 'running' });
    const record = (await store.get(started.id))!;
    expect(record.allowDowngrade).toBe(true);
    const [prepare, deploy] = [policy(record, '0-prepare'), policy(record, '0-deploy')];
    const driver = new RolloutDriver(store, fleet, events);
    await driver.drive(record.id);
    expect(fleet.policies.get(prepare)).toMatchObject({
      nodes: ['a1', 'a2'],
      version: '1.0.0',
      action: 'download',
      allowDowngrade: true,
    });
    fleet.statusesOf.set(prepare, answered('downloaded', 'a1', 'a2'));
    await driver.drive(record.id);
    expect(fleet.policies.get(deploy)).toMatchObject({ action: 'install', allowDowngrade: true });
  });

  it('sends the policies of a rollout that does not go down without the flag', async () => {
    const record = await started();
    const fleet = new ScriptedFleet();
    await new RolloutDriver(store, fleet, events).drive(record.id);
    expect(fleet.policies.get(policy(record, '0-prepare'))).not.toHaveProperty('allowDowngrade');
  });

  it('cancels by pausing the phase, waiting for the nodes mid-step, then removing its policy and freeing the nodes', async () => {
    const record = await started();
    const fleet = new ScriptedFleet();
    const driver = new RolloutDriver(store, fleet, events);
    const prepare = policy(record, '0-prepare');
    await driver.drive(record.id);
    fleet.statusesOf.set(prepare, [...answered('downloading', 'a1'), ...answered('waiting', 'a2')]);

    expect((await operator(fleet).cancel(record.id)).state).toBe('cancelling');
    expect(await driver.drive(record.id)).toBe(true);
    expect(fleet.policies.get(prepare)).toMatchObject({ paused: true });
    expect(await driver.drive(record.id)).toBe(false);
    expect((await store.get(record.id))!.state).toBe('cancelling');

    fleet.statusesOf.set(prepare, [...answered('downloaded', 'a1'), ...answered('paused', 'a2')]);
    expect(await driver.drive(record.id)).toBe(true);
    expect(fleet.changes()).toEqual([`ensure ${prepare}`, `pause ${prepare}`, `remove ${prepare}`]);
    const ended = (await store.get(record.id))!;
    expect(ended).toMatchObject({ state: 'cancelled' });
    expect(ended.progress.nodes.a1!.state).toBe('prepared');
    expect(ended.progress.groups.second!.phase).toBe('cancelled');
    const claims = await dataSource.query(
      `SELECT node FROM ${ORCHESTRATOR_SCHEMA}.node_claims WHERE holder = $1`,
      [rolloutHolder(record.id)],
    );
    expect(claims).toEqual([]);
    expect((await store.drivable()).map((each) => each.id)).not.toContain(record.id);
  });
});
