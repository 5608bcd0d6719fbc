import { trace } from '@opentelemetry/api';
import { injectTraceContext, withPublishSpan, type HeaderCarrier } from './bus-propagation';
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

  it('still records spans, so outgoing traceparent headers and log trace ids are real', async () => {
    const headers = new Map<string, string>();
    const carrier: HeaderCarrier = {
      get: (k) => headers.get(k) ?? '',
      set: (k, v) => void headers.set(k, v),
    };
    const out = memoryDestination();
    const logger = createLogger('careen-test', { destination: out });

    const ids = await withPublishSpan('careen.test', (span) => {
      expect(span.isRecording()).toBe(true);
      injectTraceContext(carrier);
      logger.info('publishing');
      return span.spanContext();
    });

    expect(headers.get('traceparent')).toBe(`00-${ids.traceId}-${ids.spanId}-01`);
    expect(out.records()[0]).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId });
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
