import {
  DLQ_REASON_HEADER,
  ExchangeChanged,
  STREAMS,
  deadLetterSubject,
  type ChangePayload,
} from '@careen/contracts';
import {
  createServiceDataSource,
  outboxSchemaUp,
  ProcessedMessages,
  runServiceMigrations,
} from '@careen/persistence';
import { eventually, useTestInfra } from '@careen/testing';
import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { type DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { connectBus, type BusConnection } from './bus-connection';
import { BatchFailures, runConsumer, type BusMessage, type RunningConsumer } from './consumer-runner';
import { EventPublisher } from './event-publisher';
import { ensureStreams } from './stream-provisioner';

class CreateInbox1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaUp('consumertest')) await runner.query(sql);
    await runner.query('CREATE TABLE consumertest.applied (resource_id text NOT NULL)');
  }
  async down(): Promise<void> {}
}

function change(resourceId: string): ChangePayload {
  return {
    org: 'acme',
    resource: 'org',
    resourceId,
    operation: 'created',
    changedAt: new Date().toISOString(),
  };
}

/** Collects handled messages and lets a test await the n-th one. */
class Recorder {
  readonly handled: BusMessage<ChangePayload>[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  record(message: BusMessage<ChangePayload>): void {
    this.handled.push(message);
    this.waiters = this.waiters.filter((waiter) =>
      this.handled.length >= waiter.count ? (waiter.resolve(), false) : true,
    );
  }

  until(count: number): Promise<void> {
    if (this.handled.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

describe('runConsumer', () => {
  const infra = useTestInfra();
  let bus: BusConnection;
  let publisher: EventPublisher;
  let consumer: RunningConsumer | undefined;
  let purposeCounter = 0;

  beforeAll(async () => {
    bus = await connectBus({ url: infra.natsUrl, name: 'consumer-test' });
    await ensureStreams(bus.jsm, [STREAMS.changes, STREAMS.deadLetters]);
    publisher = new EventPublisher(bus.js, 'careen/test');
  });

  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  afterAll(async () => {
    await bus.close();
  });

  async function start(handler: (message: BusMessage<ChangePayload>) => Promise<void>, maxDeliver = 3) {
    await bus.jsm.streams.purge(STREAMS.changes.name);
    await bus.jsm.streams.purge(STREAMS.deadLetters.name);
    consumer = await runConsumer({
      bus,
      service: 'test',
      purpose: `changes${purposeCounter++}`,
      event: ExchangeChanged,
      handler,
      maxDeliver,
      backoffMs: [50],
    });
  }

  async function publishRawBody(
    subject: string,
    body: string,
    withHeaders = true,
    id = `raw-${randomUUID()}`,
    contentType?: string,
  ): Promise<void> {
    const h = natsHeaders();
    if (contentType) h.set('content-type', contentType);
    if (withHeaders) {
      h.set('ce-specversion', '1.0');
      h.set('ce-id', id);
      h.set('ce-type', ExchangeChanged.type);
      h.set('ce-source', 'careen/test');
      h.set('ce-time', new Date().toISOString());
    }
    await bus.js.publish(subject, new TextEncoder().encode(body), {
      headers: h,
      msgID: `${id}-${randomUUID()}`,
    });
  }

  async function deadLetters(count: number): Promise<{ reason: string; subject: string }[]> {
    const name = `dlq-reader-${purposeCounter}`;
    await bus.jsm.consumers.add(STREAMS.deadLetters.name, {
      name,
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
    });
    const reader = await bus.js.consumers.get(STREAMS.deadLetters.name, name);
    const out: { reason: string; subject: string }[] = [];
    while (out.length < count) {
      const message = await reader.next({ expires: 10_000 });
      if (!message) throw new Error(`only ${out.length} of ${count} dead letters arrived`);
      out.push({ reason: message.headers?.get(DLQ_REASON_HEADER) ?? '', subject: message.subject });
    }
    return out;
  }

  it('hands valid events to the handler with their CloudEvent attributes', async () => {
    const recorder = new Recorder();
    await start(async (message) => recorder.record(message));
    await publisher.publish(ExchangeChanged, ['acme', 'org', 'a'], change('a'), { id: 'change-a' });

    await recorder.until(1);

    expect(recorder.handled[0]?.payload).toMatchObject({ org: 'acme', resourceId: 'a' });
    expect(recorder.handled[0]?.attributes).toMatchObject({
      id: 'change-a',
      type: 'careen.exchange.changed',
      source: 'careen/test',
    });
    const stored = await bus.jsm.streams.getMessage(STREAMS.changes.name, {
      last_by_subj: 'careen.changes.acme.org.a',
    });
    expect(stored?.header.get('content-type')).toBe('application/json');
  });

  it('dead-letters poisoned messages with their reason and keeps consuming', async () => {
    const recorder = new Recorder();
    await start(async (message) => recorder.record(message));
    await publishRawBody('careen.changes.acme.org.bad1', '{not json');
    await publishRawBody(
      'careen.changes.acme.org.bad2',
      JSON.stringify({ ...change('bad2'), operation: 'exploded' }),
    );
    await publishRawBody('careen.changes.acme.org.bad3', JSON.stringify({ ...change('bad3'), sneaky: true }));
    await publishRawBody('careen.changes.acme.org.bad4', JSON.stringify(change('bad4')), false);
    await publishRawBody(
      'careen.changes.acme.org.bad5',
      JSON.stringify(change('bad5')),
      true,
      undefined,
      'text/xml',
    );
    // Written before content-type was set, or with its parameters: still JSON.
    await publishRawBody('careen.changes.acme.org.old', JSON.stringify(change('old')));
    await publishRawBody(
      'careen.changes.acme.org.charset',
      JSON.stringify(change('charset')),
      true,
      undefined,
      'application/json; charset=utf-8',
    );
    await publisher.publish(ExchangeChanged, ['acme', 'org', 'good'], change('good'));

    await recorder.until(3);
    const letters = await deadLetters(5);

    expect(recorder.handled.map((message) => message.payload.resourceId)).toEqual(['old', 'charset', 'good']);
    expect(letters.every((letter) => letter.subject === deadLetterSubject('test'))).toBe(true);
    expect(letters.map((letter) => letter.reason)).toEqual([
      expect.stringContaining('malformed JSON'),
      expect.stringContaining('operation'),
      expect.stringContaining('sneaky'),
      expect.stringContaining('missing CloudEvents header ce-specversion'),
      'unsupported content-type "text/xml": the body must be application/json',
    ]);
  });

  it('dead-letters a change whose data does not match its resource’s contract or cannot be read', async () => {
    const recorder = new Recorder();
    await start(async (message) => recorder.record(message));
    const node = (data: object): ChangePayload => ({
      ...change('n1'),
      resource: 'node',
      operation: 'updated',
      data: { org: 'acme', id: 'n1', haGroup: 'g1', schedulable: true, status: null, ...data },
    });
    await publishRawBody(
      'careen.changes.acme.node.n1',
      JSON.stringify(node({ haGroup: 7, updatedAt: new Date().toISOString() })),
    );
    await publishRawBody('careen.changes.acme.node.n1', JSON.stringify(node({})));
    // class-transformer throws on a field named `constructor` deep in the data: refused, not thrown.
    await publishRawBody(
      'careen.changes.acme.node.n1',
      JSON.stringify(node({ updatedAt: new Date().toISOString(), status: { a: { constructor: 1 } } })),
    );
    await publisher.publish(
      ExchangeChanged,
      ['acme', 'node', 'n1'],
      node({ updatedAt: new Date().toISOString(), rack: 'r1' }),
    );

    await recorder.until(1);
    const letters = await deadLetters(3);

    expect(recorder.handled.map((message) => message.payload.data)).toEqual([
      expect.objectContaining({ haGroup: 'g1', rack: 'r1' }),
    ]);
    expect(letters.map((letter) => letter.reason)).toEqual([
      expect.stringMatching(/data does not match the node change contract: haGroup: .*string/),
      expect.stringMatching(/data does not match the node change contract: updatedAt: /),
      expect.stringMatching(/^invalid payload: /),
    ]);
  });

  it('retries a failing handler, then dead-letters the message with the error, and handles the next one', async () => {
    const attempts: number[] = [];
    const recorder = new Recorder();
    await start(async (message) => {
      if (message.payload.resourceId === 'cursed') {
        attempts.push(message.deliveryCount);
        throw new Error('downstream refused');
      }
      recorder.record(message);
    }, 3);
    await publisher.publish(ExchangeChanged, ['acme', 'org', 'cursed'], change('cursed'));
    await publisher.publish(ExchangeChanged, ['acme', 'org', 'fine'], change('fine'));

    const [letter] = await deadLetters(1);
    await recorder.until(1);

    expect(attempts).toEqual([1, 2, 3]);
    expect(letter?.reason).toBe('handler failed after 3 attempts: downstream refused');
    expect(recorder.handled.map((message) => message.payload.resourceId)).toEqual(['fine']);
  });

  /**
   * Runs a batch consumer whose first batch is `gate` alone, held inside its handler until `ids`
   * have all reached it, so that they make the second batch however the server's deliveries
   * happen to be split; `take` handles each batch after the gate. Answers the batches handed
   * over so far, by their ids.
   */
  async function batchBehindGate(
    ids: string[],
    take: (messages: BusMessage<ChangePayload>[]) => void,
  ): Promise<string[][]> {
    await bus.jsm.streams.purge(STREAMS.changes.name);
    await bus.jsm.streams.purge(STREAMS.deadLetters.name);
    const batches: string[][] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    await publisher.publish(ExchangeChanged, ['acme', 'org', 'gate'], change('gate'));
    consumer = await runConsumer({
      bus,
      service: 'test',
      purpose: `changes${purposeCounter++}`,
      event: ExchangeChanged,
      batchHandler: async (messages) => {
        const handed = messages.map((message) => message.payload.resourceId);
        batches.push(handed);
        if (handed.includes('gate')) await gate;
        take(messages);
      },
      maxDeliver: 2,
      backoffMs: [50],
    });
    await eventually(() => expect(batches).toEqual([['gate']]));
    for (const id of ids) await publisher.publish(ExchangeChanged, ['acme', 'org', id], change(id));
    await eventually(async () => {
      const info = await bus.jsm.consumers.info(STREAMS.changes.name, consumer!.name);
      expect({ pending: info.num_pending, unacknowledged: info.num_ack_pending }).toEqual({
        pending: 0,
        unacknowledged: ids.length + 1,
      });
    });
    await bus.nc.flush();
    openGate();
    return batches;
  }

  it('tries each message of a failing batch on its own, and retries and dead-letters only the one that fails', async () => {
    const recorder = new Recorder();
    const batches = await batchBehindGate(['first', 'cursed', 'last'], (messages) => {
      if (messages.some((message) => message.payload.resourceId === 'cursed'))
        throw new Error('downstream refused');
      for (const message of messages) recorder.record(message);
    });

    const [letter] = await deadLetters(1);
    await recorder.until(3);

    expect(letter?.reason).toBe('handler failed after 2 attempts: downstream refused');
    expect(recorder.handled.map((message) => message.payload.resourceId)).toEqual(['gate', 'first', 'last']);
    expect(batches).toEqual([
      ['gate'],
      ['first', 'cursed', 'last'],
      ['first'],
      ['cursed'],
      ['last'],
      ['cursed'],
    ]);
  });

  it('acknowledges what a batch handler took, and tries again later only the messages it names as failed', async () => {
    const recorder = new Recorder();
    const batches = await batchBehindGate(['first', 'flaky', 'last'], (messages) => {
      const failures = new Map<BusMessage<ChangePayload>, unknown>();
      for (const message of messages) {
        // Fails its first delivery only, as a transaction that lost its connection would.
        if (message.payload.resourceId === 'flaky' && message.deliveryCount === 1)
          failures.set(message, new Error('connection lost'));
        else recorder.record(message);
      }
      if (failures.size > 0) throw new BatchFailures(failures);
    });

    await recorder.until(4);
    expect(recorder.handled.map((message) => message.payload.resourceId)).toEqual([
      'gate',
      'first',
      'last',
      'flaky',
    ]);
    // The two taken were not handed over again; the failed one came back alone.
    expect(batches).toEqual([['gate'], ['first', 'flaky', 'last'], ['flaky']]);
    await eventually(async () => {
      const info = await bus.jsm.consumers.info(STREAMS.changes.name, consumer!.name);
      expect({ pending: info.num_pending, unacknowledged: info.num_ack_pending }).toEqual({
        pending: 0,
        unacknowledged: 0,
      });
    });
  });

  describe('with an idempotent handler', () => {
    let dataSource: DataSource;

    beforeAll(async () => {
      dataSource = createServiceDataSource({
        url: infra.databaseUrl,
        schema: 'consumertest',
        entities: [],
        migrations: [CreateInbox1700000000000],
        applicationName: 'consumer-test',
      });
      await dataSource.initialize();
      await runServiceMigrations(dataSource);
    });

    afterAll(() => dataSource.destroy());

    it('applies an event delivered twice only once', async () => {
      const processed = new ProcessedMessages(dataSource);
      const recorder = new Recorder();
      await start(async (message) => {
        await processed.applyEachOnce('test-changes', [message.attributes.id], (manager) =>
          manager.query('INSERT INTO consumertest.applied (resource_id) VALUES ($1)', [
            message.payload.resourceId,
          ]),
        );
        recorder.record(message);
      });
      // The same event published again after the stream's duplicate window would be stored twice;
      // a fresh Nats-Msg-Id stands in for that here.
      const event = change('once');
      await publisher.publish(ExchangeChanged, ['acme', 'org', 'once'], event, { id: 'exchange-42' });
      await publishRawBody('careen.changes.acme.org.once', JSON.stringify(event), true, 'exchange-42');

      await recorder.until(2);

      const rows = await dataSource.query<{ count: string }[]>(
        "SELECT count(*) FROM consumertest.applied WHERE resource_id = 'once'",
      );
      expect(Number(rows[0]?.count)).toBe(1);
    });

    it('hands a batch over with only the messages not handled before, each once', async () => {
      const processed = new ProcessedMessages(dataSource);
      await processed.applyEachOnce('test-batch', ['b'], async () => undefined);
      const handed: string[][] = [];
      await processed.applyEachOnce('test-batch', ['a', 'b', 'a', 'c'], async (_manager, fresh) => {
        handed.push([...fresh].sort());
      });
      await processed.applyEachOnce('test-batch', ['a', 'c'], async (_manager, fresh) => {
        handed.push([...fresh]);
      });
      expect(handed).toEqual([['a', 'c']]);
    });

    it('forgets a batch whose work failed, so that it is handled when delivered again', async () => {
      const processed = new ProcessedMessages(dataSource);
      const failing = processed.applyEachOnce('test-failed', ['x', 'y'], async () => {
        throw new Error('handler failed');
      });
      await expect(failing).rejects.toThrow('handler failed');
      const handed: string[] = [];
      await processed.applyEachOnce('test-failed', ['x', 'y'], async (_manager, fresh) => {
        handed.push(...fresh);
      });
      expect(handed.sort()).toEqual(['x', 'y']);
    });

    it('prunes only the records older than asked', async () => {
      const processed = new ProcessedMessages(dataSource);
      await processed.applyEachOnce('test-prune', ['old', 'new'], async () => undefined);
      await dataSource.query(
        "UPDATE consumertest.processed_messages SET processed_at = now() - interval '2 days' WHERE message_id = 'old'",
      );
      expect(await processed.prune(24 * 3_600_000)).toBe(1);
      const left = await dataSource.query<{ message_id: string }[]>(
        "SELECT message_id FROM consumertest.processed_messages WHERE consumer = 'test-prune'",
      );
      expect(left).toEqual([{ message_id: 'new' }]);
    });
  });
});
