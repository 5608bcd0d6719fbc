import { trace } from '@opentelemetry/api';
import { injectTraceContext, withConsumeSpan, withPublishSpan, type HeaderCarrier } from './bus-propagation';
import { createLogger } from './logger';
import { memoryDestination } from './memory-destination.fixture';
import { startTelemetry, type TelemetryHandle } from './start-telemetry';

// Starts the real SDK, which registers process-wide providers: keep this file to itself.
describe('startTelemetry without an OTLP endpoint', () => {
  let handle: TelemetryHandle;

  beforeAll(() => {
    handle = startTelemetry({ serviceName: 'careen-test' });
  });
  afterAll(() => handle.shutdown());

  it('returns the same handle when called again', () => {
    expect(startTelemetry({ serviceName: 'other', otlpEndpoint: 'http://127.0.0.1:1' })).toBe(handle);
    expect(handle).toMatchObject({ serviceName: 'careen-test', exporting: false });
  });

  const headerCarrier = (headers: Map<string, string>): HeaderCarrier => ({
    get: (k) => headers.get(k) ?? '',
    set: (k, v) => void headers.set(k, v),
  });

  it('records no trace it starts, yet its traceparent headers and log trace ids are real', async () => {
    const headers = new Map<string, string>();
    const out = memoryDestination();
    const logger = createLogger('careen-test', { destination: out });

    const ids = await withPublishSpan('careen.test', (span) => {
      expect(span.isRecording()).toBe(false);
      injectTraceContext(headerCarrier(headers));
      logger.info('publishing');
      return span.spanContext();
    });

    expect(ids.traceId).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
    expect(headers.get('traceparent')).toBe(`00-${ids.traceId}-${ids.spanId}-00`);
    expect(out.records()[0]).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId });
  });

  it('records a span whose caller sampled the trace, and passes the trace on sampled', async () => {
    const traceId = 'a1'.repeat(16);
    const caller = new Map([['traceparent', `00-${traceId}-${'b2'.repeat(8)}-01`]]);
    const headers = new Map<string, string>();

    const span = await withConsumeSpan('careen.test', headerCarrier(caller), (span) => {
      expect(span.isRecording()).toBe(true);
      injectTraceContext(headerCarrier(headers));
      return span.spanContext();
    });

    expect(span.traceId).toBe(traceId);
    expect(headers.get('traceparent')).toBe(`00-${traceId}-${span.spanId}-01`);
  });

  it('propagates the active context across awaits', async () => {
    await trace.getTracer('test').startActiveSpan('outer', async (outer) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(trace.getActiveSpan()?.spanContext().spanId).toBe(outer.spanContext().spanId);
      outer.end();
    });
  });

  it('shuts down more than once without error', async () => {
    await expect(handle.shutdown()).resolves.toBeUndefined();
  });
});
