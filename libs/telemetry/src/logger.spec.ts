import { trace } from '@opentelemetry/api';
import { startInMemoryTracing, type InMemoryTracing } from '@careen/testing';
import { createLogger } from './logger';
import { memoryDestination } from './memory-destination.fixture';

describe('createLogger', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = startInMemoryTracing();
  });
  afterAll(() => tracing.stop());

  it('writes one JSON object per line with service, level label, ISO time and message', () => {
    const out = memoryDestination();
    const logger = createLogger('exchange', { destination: out });

    logger.info('listening');
    logger.warn({ port: 8080 }, 'port busy');

    expect(out.lines).toHaveLength(2);
    const [first, second] = out.records();
    expect(first).toMatchObject({ service: 'exchange', level: 'info', msg: 'listening' });
    expect(new Date(first?.time as string).toISOString()).toBe(first?.time);
    expect(second).toMatchObject({ service: 'exchange', level: 'warn', msg: 'port busy', port: 8080 });
    expect(first).not.toHaveProperty('trace_id');
  });

  it('adds the trace and span ids of the active span', () => {
    const out = memoryDestination();
    const logger = createLogger('agbot', { destination: out });

    const ids = trace.getTracer('test').startActiveSpan('work', (span) => {
      logger.info('inside');
      span.end();
      return span.spanContext();
    });

    expect(out.records()[0]).toMatchObject({ msg: 'inside', trace_id: ids.traceId, span_id: ids.spanId });
  });

  it('drops lines below the configured level', () => {
    const out = memoryDestination();
    const logger = createLogger('notifier', { level: 'warn', destination: out });

    logger.info('quiet');
    logger.error('loud');

    expect(out.records().map((r) => r.msg)).toEqual(['loud']);
  });
});
