import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  extractTraceContext,
  injectTraceContext,
  withConsumeSpan,
  withPublishSpan,
  type HeaderCarrier,
} from './bus-propagation';
import { type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startInMemoryTracing, type InMemoryTracing } from '@careen/testing';

/** Behaves like NATS MsgHdrs: a missing key reads as ''. */
class MapCarrier implements HeaderCarrier {
  readonly values = new Map<string, string>();
  get(key: string): string {
    return this.values.get(key) ?? '';
  }
  set(key: string, value: string): void {
    this.values.set(key, value);
  }
  has(key: string): boolean {
    return this.values.has(key);
  }
}

describe('bus trace propagation', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = startInMemoryTracing();
  });
  afterEach(() => tracing.reset());
  afterAll(() => tracing.stop());

  /** The first two finished spans: the test published, then consumed. */
  function publishAndConsume(): [ReadableSpan, ReadableSpan] {
    const [publish, consume] = tracing.finishedSpans();
    if (!publish || !consume) throw new Error('expected a publish span and a consume span to have finished');
    return [publish, consume];
  }

  it('continues the publisher’s trace in the consumer, with the publish span as parent', async () => {
    const headers = new MapCarrier();
    await withPublishSpan('careen.nodes.status', () => injectTraceContext(headers));

    const seen = await withConsumeSpan('careen.nodes.status', headers, (span) => span.spanContext());

    const [publish, consume] = publishAndConsume();
    expect(headers.get('traceparent')).toBe(
      `00-${publish.spanContext().traceId}-${publish.spanContext().spanId}-01`,
    );
    expect(consume.spanContext().traceId).toBe(publish.spanContext().traceId);
    expect(consume.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(consume.parentSpanContext?.isRemote).toBe(true);
    expect(seen.spanId).toBe(consume.spanContext().spanId);
  });

  it('marks spans with their kind and messaging attributes', async () => {
    const headers = new MapCarrier();
    await withPublishSpan('careen.changes.created', () => injectTraceContext(headers));
    await withConsumeSpan('careen.changes.created', headers, () => undefined);

    const [publish, consume] = publishAndConsume();
    expect(publish.name).toBe('publish careen.changes.created');
    expect(publish.kind).toBe(SpanKind.PRODUCER);
    expect(consume.name).toBe('process careen.changes.created');
    expect(consume.kind).toBe(SpanKind.CONSUMER);
    for (const span of [publish, consume]) {
      expect(span.attributes).toMatchObject({
        'messaging.system': 'nats',
        'messaging.destination.name': 'careen.changes.created',
      });
    }
  });

  it('runs the work inside the span so nested calls see it as active', async () => {
    const activeId = await withPublishSpan('careen.a', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return trace.getActiveSpan()?.spanContext().spanId;
    });
    expect(activeId).toBe(tracing.finishedSpans()[0]?.spanContext().spanId);
  });

  it('makes the publish span a child of the span active when publishing', async () => {
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('http request', async (request) => {
      await withPublishSpan('careen.a', () => undefined);
      request.end();
    });
    const publish = tracing.finishedSpans().find((s) => s.name === 'publish careen.a');
    const request = tracing.finishedSpans().find((s) => s.name === 'http request');
    expect(publish?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
  });

  it('starts a new trace for a message without trace headers, ignoring the consumer loop’s own span', async () => {
    const loop = trace.getTracer('test').startSpan('consumer loop');
    await context.with(trace.setSpan(context.active(), loop), () =>
      withConsumeSpan('careen.a', new MapCarrier(), () => undefined),
    );
    loop.end();
    const consume = tracing.finishedSpans().find((s) => s.name === 'process careen.a');
    expect(consume?.parentSpanContext).toBeUndefined();
    expect(consume?.spanContext().traceId).not.toBe(loop.spanContext().traceId);
  });

  it('records a thrown error on the span, sets error status and rethrows it', async () => {
    const failure = new Error('stream unavailable');
    await expect(
      withPublishSpan('careen.a', () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expect(
      withConsumeSpan('careen.a', new MapCarrier(), async () => Promise.reject(new Error('handler failed'))),
    ).rejects.toThrow('handler failed');

    const [publish, consume] = publishAndConsume();
    expect(publish.status).toEqual({ code: SpanStatusCode.ERROR, message: 'stream unavailable' });
    expect(publish.events.map((e) => e.name)).toEqual(['exception']);
    expect(publish.events[0]?.attributes?.['exception.message']).toBe('stream unavailable');
    expect(consume.status).toEqual({ code: SpanStatusCode.ERROR, message: 'handler failed' });
    expect(consume.ended).toBe(true);
  });

  it('carries tracestate when the context has one', () => {
    const upstream = new MapCarrier();
    upstream.set('traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    upstream.set('tracestate', 'vendor=opaque');
    const outgoing = new MapCarrier();

    injectTraceContext(outgoing, extractTraceContext(upstream));

    expect(outgoing.get('traceparent')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(outgoing.get('tracestate')).toBe('vendor=opaque');
  });

  it('writes nothing when no span is active', () => {
    const headers = new MapCarrier();
    injectTraceContext(headers);
    expect(headers.values.size).toBe(0);
  });

  it('accepts a carrier without has(), reading an empty value as absent', () => {
    const carrier: HeaderCarrier = { get: () => '', set: () => undefined };
    expect(trace.getSpanContext(extractTraceContext(carrier))).toBeUndefined();
  });
});
