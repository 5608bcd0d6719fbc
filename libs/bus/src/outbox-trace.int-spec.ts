import { ExchangeChanged, STREAMS } from '@careen/contracts';
import {
  createServiceDataSource,
  OutboxWriter,
  outboxSchemaUp,
  runServiceMigrations,
} from '@careen/persistence';
import { injectTraceContext, recordCarrier } from '@careen/telemetry';
import {
  eventually,
  readStream,
  startInMemoryTracing,
  useTestInfra,
  type InMemoryTracing,
} from '@careen/testing';
import { trace } from '@opentelemetry/api';
import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { connectBus } from './bus-connection';
import { runConsumer } from './consumer-runner';
import { EventPublisher } from './event-publisher';
import { OutboxRelay } from './outbox-relay';
import { ensureStreams } from './stream-provisioner';

class CreateOutbox1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaUp('tracetest')) await runner.query(sql);
  }
  async down(): Promise<void> {}
}

describe('trace context through the outbox and the bus', () => {
  const infra = useTestInfra();
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = startInMemoryTracing();
  });

  afterAll(() => tracing.stop());

  it('carries the trace of the request that made a change to the consumer that handles it', async () => {
    const dataSource = createServiceDataSource({
      url: infra.databaseUrl,
      schema: 'tracetest',
      entities: [],
      migrations: [CreateOutbox1700000000000],
      applicationName: 'trace-test',
    });
    await dataSource.initialize();
    await runServiceMigrations(dataSource);
    const bus = await connectBus({ url: infra.natsUrl, name: 'trace-test' });
    await ensureStreams(bus.jsm, [STREAMS.changes, STREAMS.deadLetters]);
    const writer = new OutboxWriter('tracetest', () => {
      const headers: Record<string, string> = {};
      injectTraceContext(recordCarrier(headers));
      return headers;
    });
    const relay = new OutboxRelay({
      databaseUrl: infra.databaseUrl,
      schema: 'tracetest',
      publisher: new EventPublisher(bus.js, 'careen/test'),
      pollIntervalMs: 100,
    });
    const handledIn: string[] = [];
    const consumer = await runConsumer({
      bus,
      service: 'test',
      purpose: 'traced',
      event: ExchangeChanged,
      handler: async () => void handledIn.push(trace.getActiveSpan()?.spanContext().traceId ?? 'none'),
    });

    // The "request": a span during which the change is committed.
    let requestSpanId = '';
    const requestTraceId = await trace.getTracer('test').startActiveSpan('PUT /thing', async (span) => {
      requestSpanId = span.spanContext().spanId;
      await dataSource.transaction((manager) =>
        writer.append(manager, ExchangeChanged, ['acme', 'org', 'traced'], {
          org: 'acme',
          resource: 'org',
          resourceId: 'traced',
          operation: 'updated',
          changedAt: new Date().toISOString(),
        }),
      );
      span.end();
      return span.spanContext().traceId;
    });
    relay.start();

    const [message] = await readStream(bus, STREAMS.changes.name, { count: 1 });
    expect(message?.headers.traceparent).toContain(requestTraceId);
    await eventually(() => expect(handledIn).toEqual([requestTraceId]));
    // One trace, each step the child of the one before: request → relay's publish → consume.
    const spanNamed = (name: string) => tracing.finishedSpans().find((span) => span.name === name);
    const publishSpan = spanNamed('publish careen.changes.acme.org.traced');
    const consumeSpan = spanNamed('process careen.changes.acme.org.traced');
    expect([publishSpan, consumeSpan].map((span) => span?.spanContext().traceId)).toEqual([
      requestTraceId,
      requestTraceId,
    ]);
    expect(publishSpan?.parentSpanContext?.spanId).toBe(requestSpanId);
    expect(consumeSpan?.parentSpanContext?.spanId).toBe(publishSpan?.spanContext().spanId);
    expect(message?.headers.traceparent).toContain(publishSpan?.spanContext().spanId);

    await consumer.stop();
    await relay.stop();
    await bus.close();
    await dataSource.destroy();
  });
});
