/**
 * `npm run bench -- bus [messages]`: publish and consume throughput through libs/bus (typed
 * CloudEvents publisher; durable consumer with validation, tracing and dead-letter handling)
 * next to the raw nats.js client doing the same JetStream work in the same run.
 */
import {
  connectBus,
  decodeMessage,
  ensureStreams,
  EventPublisher,
  headerLookup,
  runConsumer,
} from '@careen/bus';
import { ExchangeChanged, STREAMS, type ChangePayload } from '@careen/contracts';
import { AckPolicy, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { startBenchStack } from './support/bench-stack';
import { printTable, timed } from './support/stats';

const MESSAGES = Number(process.argv[2] ?? 20_000);
const IN_FLIGHT = 256;

/** The change a fleet makes most: a node's management status, as the exchange records it. */
function change(i: number): ChangePayload {
  const at = new Date().toISOString();
  return {
    org: 'bench',
    resource: 'managementStatus',
    resourceId: `n${i}`,
    operation: 'updated',
    changedAt: at,
    byNode: true,
    data: {
      org: 'bench',
      node: `n${i}`,
      nmp: 'fleet-upgrade',
      status: 'downloading',
      version: '2.0.0',
      startTime: at,
      endTime: null,
      error: null,
      attempt: 1,
      fromVersion: '1.0.0',
      updated: at,
    },
  };
}

/** Runs `publishOne` for 0..count-1 with at most IN_FLIGHT acks outstanding. */
async function pipelined(count: number, publishOne: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await publishOne(next++);
    }),
  );
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ postgres: false });
  const bus = await connectBus({ url: stack.natsUrl, name: 'bench' });
  try {
    await ensureStreams(bus.jsm, [STREAMS.changes, STREAMS.deadLetters]);
    const encoder = new TextEncoder();
    const publisher = new EventPublisher(bus.js, 'careen/bench');

    // Warm up both paths so neither pays for connection and JIT start-up.
    await pipelined(2_000, (i) =>
      publisher.publish(ExchangeChanged, ['bench', 'managementStatus', `w${i}`], change(i)),
    );

    // Each path publishes into an empty stream and then consumes it, so neither consumer has
    // to skip the other's messages.
    await bus.jsm.streams.purge(STREAMS.changes.name);
    const rawPublishMs = await timed(() =>
      pipelined(MESSAGES, (i) => {
        const h = natsHeaders();
        h.set('ce-specversion', '1.0');
        h.set('ce-id', `raw-${i}`);
        h.set('ce-type', ExchangeChanged.type);
        h.set('ce-source', 'careen/bench');
        h.set('ce-time', new Date().toISOString());
        return bus.js.publish(`careen.changes.raw.org.r${i}`, encoder.encode(JSON.stringify(change(i))), {
          msgID: `raw-${i}`,
          headers: h,
        });
      }),
    );

    // Consume: raw pull consumer with JSON parse and ack, against the bus runner.
    /** A raw pull consumer over the raw messages, doing `work` on each before acking. */
    const rawConsume = (durable: string, work: (message: JsMsg) => void) =>
      timed(async () => {
        await bus.jsm.consumers.add(STREAMS.changes.name, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          filter_subject: 'careen.changes.raw.>',
          max_ack_pending: 256,
        });
        const consumer = await bus.js.consumers.get(STREAMS.changes.name, durable);
        const messages = await consumer.consume({ max_messages: 256 });
        let seen = 0;
        for await (const message of messages) {
          work(message);
          message.ack();
          if (++seen === MESSAGES) break;
        }
        await messages.close();
      });
    const rawConsumeMs = await rawConsume('bench-raw', (message) =>
      JSON.parse(new TextDecoder().decode(message.data)),
    );
    // The same raw loop plus the validation every Careen consumer must do: shows what the
    // runner itself adds beyond the checks the design requires.
    const rawValidatedMs = await rawConsume('bench-raw-validated', (message) => {
      const decoded = decodeMessage(
        ExchangeChanged.payload,
        ExchangeChanged.type,
        message.data,
        headerLookup(message.headers),
      );
      if (!decoded.ok) throw new Error(`the bench's change was refused: ${decoded.reason}`);
    });
    await bus.jsm.streams.purge(STREAMS.changes.name);
    const busPublishMs = await timed(() =>
      pipelined(MESSAGES, (i) =>
        publisher.publish(ExchangeChanged, ['bus', 'managementStatus', `b${i}`], change(i), {
          id: `bus-${i}`,
        }),
      ),
    );
    const busConsumeMs = await timed(async () => {
      let seen = 0;
      let done: () => void = () => undefined;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const running = await runConsumer({
        bus,
        service: 'bench',
        purpose: 'bus',
        event: ExchangeChanged,
        filterSubject: 'careen.changes.bus.>',
        maxAckPending: 256,
        handler: async () => {
          if (++seen === MESSAGES) done();
        },
      });
      await finished;
      await running.stop();
    });

    const rate = (ms: number) => (MESSAGES / ms) * 1000;
    printTable(
      `bus: ${MESSAGES} messages of ~300 bytes, ${IN_FLIGHT} publishes in flight, one nats-server on loopback`,
      [
        {
          path: 'publish',
          'raw nats.js msg/s': rate(rawPublishMs),
          'libs/bus msg/s': rate(busPublishMs),
          'ratio to raw': rawPublishMs / busPublishMs,
        },
        {
          path: 'consume',
          'raw nats.js msg/s': rate(rawConsumeMs),
          'libs/bus msg/s': rate(busConsumeMs),
          'ratio to raw': rawConsumeMs / busConsumeMs,
        },
        {
          path: 'consume, raw with the same validation',
          'raw nats.js msg/s': rate(rawValidatedMs),
          'libs/bus msg/s': rate(busConsumeMs),
          'ratio to raw': rawValidatedMs / busConsumeMs,
        },
      ],
    );
  } finally {
    await bus.close();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
