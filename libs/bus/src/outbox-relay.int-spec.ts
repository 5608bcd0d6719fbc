import { ExchangeChanged, STREAMS, type ChangePayload } from '@careen/contracts';
import {
  createServiceDataSource,
  OutboxWriter,
  outboxSchemaUp,
  runServiceMigrations,
} from '@careen/persistence';
import { eventually, useTestInfra } from '@careen/testing';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { type DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { connectBus, type BusConnection } from './bus-connection';
import { EventPublisher } from './event-publisher';
import { OutboxRelay } from './outbox-relay';
import { ensureStreams } from './stream-provisioner';

class CreateOutbox1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaUp('relaytest')) await runner.query(sql);
  }
  async down(): Promise<void> {}
}

function change(org: string, id: string): ChangePayload {
  return { org, resource: 'org', resourceId: id, operation: 'created', changedAt: new Date().toISOString() };
}

describe('OutboxRelay', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  let bus: BusConnection;
  let writer: OutboxWriter;
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    dataSource = createServiceDataSource({
      url: infra.databaseUrl,
      schema: 'relaytest',
      entities: [],
      migrations: [CreateOutbox1700000000000],
      applicationName: 'relay-test',
    });
    await dataSource.initialize();
    await runServiceMigrations(dataSource);
    bus = await connectBus({ url: infra.natsUrl, name: 'relay-test' });
    await ensureStreams(bus.jsm, [STREAMS.changes]);
    writer = new OutboxWriter('relaytest');
  });

  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.stop()));
    await bus.jsm.streams.purge(STREAMS.changes.name);
    await dataSource.query('TRUNCATE relaytest.outbox');
  });

  afterAll(async () => {
    await bus.close();
    await dataSource.destroy();
  });

  function startRelay(beforeMark?: (seqs: string[]) => Promise<void>, pollIntervalMs = 100): OutboxRelay {
    const relay = new OutboxRelay({
      databaseUrl: infra.databaseUrl,
      schema: 'relaytest',
      publisher: new EventPublisher(bus.js, 'careen/test'),
      pollIntervalMs,
      beforeMark,
    });
    relays.push(relay);
    relay.start();
    return relay;
  }

  async function commitChange(org: string, id: string): Promise<void> {
    await dataSource.transaction((manager) =>
      writer.append(manager, ExchangeChanged, [org, 'org', id], change(org, id)),
    );
  }

  /** Reads the stream from the start until `count` messages arrived, then checks nothing more is there. */
  async function readStream(count: number): Promise<{ id: string; subject: string }[]> {
    const name = `reader-${Date.now()}`;
    await bus.jsm.consumers.add(STREAMS.changes.name, {
      name,
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
    });
    const consumer = await bus.js.consumers.get(STREAMS.changes.name, name);
    const seen: { id: string; subject: string }[] = [];
    while (seen.length < count) {
      const message = await consumer.next({ expires: 10_000 });
      if (!message) throw new Error(`only ${seen.length} of ${count} messages arrived`);
      seen.push({ id: message.headers?.get('ce-id') ?? '', subject: message.subject });
    }
    const extra = await consumer.next({ expires: 1_000 });
    if (extra) seen.push({ id: extra.headers?.get('ce-id') ?? '', subject: extra.subject });
    await bus.jsm.consumers.delete(STREAMS.changes.name, name);
    return seen;
  }

  it('publishes each committed change once, in order, and nothing from a rolled-back transaction', async () => {
    await commitChange('acme', 'a');
    await expect(
      dataSource.transaction(async (manager) => {
        await writer.append(manager, ExchangeChanged, ['acme', 'org', 'ghost'], change('acme', 'ghost'));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await commitChange('acme', 'b');
    await commitChange('beta', 'c');
    startRelay();

    const seen = await readStream(3);

    expect(seen.map((message) => message.subject)).toEqual([
      'careen.changes.acme.org.a',
      'careen.changes.acme.org.b',
      'careen.changes.beta.org.c',
    ]);
    const seqs = seen.map((message) => Number(message.id.replace('relaytest-', '')));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  });

  it('refuses to write an outbox message outside a transaction', async () => {
    await expect(
      writer.append(dataSource.manager, ExchangeChanged, ['acme', 'org', 'x'], change('acme', 'x')),
    ).rejects.toThrow('inside the transaction');
  });

  it('numbers a change from a slow transaction after the changes that committed before it', async () => {
    const slow = dataSource.createQueryRunner();
    await slow.connect();
    await slow.startTransaction();
    await writer.append(slow.manager, ExchangeChanged, ['acme', 'org', 'slow'], change('acme', 'slow'));
    await commitChange('acme', 'fast');
    startRelay();

    // The fast change committed first: it goes out while the slow transaction is still open,
    // though that one wrote its row first.
    await eventually(async () =>
      expect((await bus.jsm.streams.info(STREAMS.changes.name)).state.messages).toBe(1),
    );
    await slow.commitTransaction();
    await slow.release();

    const seen = await readStream(2);
    expect(seen.map((message) => message.subject)).toEqual([
      'careen.changes.acme.org.fast',
      'careen.changes.acme.org.slow',
    ]);
    const seqs = seen.map((message) => Number(message.id.replace('relaytest-', '')));
    expect(seqs[1]).toBeGreaterThan(seqs[0] ?? Infinity);
  });

  it('publishes a change while an unrelated older transaction is still open', async () => {
    // A fallback poll far beyond the reader's patience: only the change's NOTIFY can deliver in time.
    startRelay(undefined, 120_000);
    await eventually(() => expect(relays[0]?.isLeader).toBe(true));
    const unrelated = dataSource.createQueryRunner();
    await unrelated.connect();
    await unrelated.startTransaction();
    await unrelated.query('SELECT pg_current_xact_id()');
    try {
      await commitChange('acme', 'not-held');

      expect((await readStream(1)).map((message) => message.subject)).toEqual([
        'careen.changes.acme.org.not-held',
      ]);
    } finally {
      await unrelated.commitTransaction();
      await unrelated.release();
    }
  });

  it('republishes in id order across a power of ten, not in the order of the ids as text', async () => {
    await dataSource.query("SELECT setval('relaytest.outbox_seq', 98)");
    for (const id of ['a', 'b', 'c', 'd']) await commitChange('acme', id);
    const attempts: string[][] = [];
    startRelay(async (seqs) => {
      attempts.push(seqs);
      if (attempts.length === 1) throw new Error('relay died before marking');
    });
    await eventually(() => expect(attempts).toHaveLength(2));
    expect(attempts).toEqual([
      ['99', '100', '101', '102'],
      ['99', '100', '101', '102'],
    ]);
  });

  it('publishes a change once even when the relay dies between publish and mark', async () => {
    await commitChange('acme', 'a');
    await commitChange('acme', 'b');
    const attempts: string[][] = [];
    startRelay(async (seqs) => {
      attempts.push(seqs);
      if (attempts.length === 1) throw new Error('relay died before marking');
    });

    // The restarted round republishes the same ids and marks them.
    await eventually(async () => {
      const rows = await dataSource.query<{ unpublished: string }[]>(
        'SELECT count(*) FILTER (WHERE published_at IS NULL) AS unpublished FROM relaytest.outbox',
      );
      expect(Number(rows[0]?.unpublished)).toBe(0);
    });
    const seen = await readStream(2);

    expect(attempts).toHaveLength(2);
    expect(attempts[1]).toEqual(attempts[0]);
    expect(seen.map((message) => message.subject)).toEqual([
      'careen.changes.acme.org.a',
      'careen.changes.acme.org.b',
    ]);
  });

  it('relays a committed change in two statements, and looks no further until the next NOTIFY', async () => {
    // Statements the relay may send: to lead (LISTEN, its lock, the read of rows a former leader
    // left unpublished, the prune, the first numbering, which finds nothing), then per change
    // (numbering it and reading it for publishing in one statement, marking it published).
    const TO_LEAD = 5;
    const PER_CHANGE = 2;
    const CHANGES = 5;
    // A fallback poll beyond the test: only a NOTIFY starts a round.
    const relay = startRelay(undefined, 120_000);
    for (let change = 1; change <= CHANGES; change++) {
      await commitChange('acme', `change-${change}`);
      await eventually(async () => {
        const [row] = await dataSource.query<{ unpublished: string }[]>(
          'SELECT count(*) FILTER (WHERE published_at IS NULL) AS unpublished FROM relaytest.outbox',
        );
        expect(Number(row?.unpublished)).toBe(0);
        expect((await bus.jsm.streams.info(STREAMS.changes.name)).state.messages).toBe(change);
      });
    }
    await relay.stop();

    expect(relay.statementsSent).toBeLessThanOrEqual(TO_LEAD + PER_CHANGE * CHANGES);
  });

  it('lets only one of two relays for a schema publish, and the standby takes over when the leader stops', async () => {
    const leader = startRelay();
    startRelay();
    await commitChange('acme', 'one');
    await readStream(1);
    await leader.stop();
    await commitChange('acme', 'two');

    const seen = await readStream(2);

    expect(seen.map((message) => message.subject)).toEqual([
      'careen.changes.acme.org.one',
      'careen.changes.acme.org.two',
    ]);
  });
});
