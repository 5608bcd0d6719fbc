/**
 * Owns the process-wide OpenTelemetry SDK: one start per process, before http or pg is loaded.
 * It never reads the environment; the app's validated config passes everything in.
 */
import { type IncomingMessage } from 'node:http';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NoopSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export interface TelemetryOptions {
  serviceName: string;
  /** Base URL of an OTLP/HTTP collector, e.g. `http://collector:4318`; spans go to `<url>/v1/traces`. */
  otlpEndpoint?: string;
  /**
   * Paths (without the query) of incoming requests that start no trace of their own: a service's
   * long polls, which a fleet repeats every few seconds per node. A request on one that carries
   * its caller's `traceparent` is still traced, in the caller's trace.
   */
  untracedPaths?: RegExp;
}

export interface TelemetryHandle {
  readonly serviceName: string;
  /** Whether spans leave the process (an OTLP endpoint was given). */
  readonly exporting: boolean;
  /** Flushes spans still buffered and stops the SDK; safe to call more than once. */
  shutdown(): Promise<void>;
}

/** Probes and scrapes hit these every few seconds; tracing them only buries real requests. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

let started: TelemetryHandle | undefined;

export function startTelemetry(options: TelemetryOptions): TelemetryHandle {
  if (started) return started;

  const endpoint = options.otlpEndpoint?.trim().replace(/\/+$/, '') || undefined;
  const sdk = new NodeSDK({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName })),
    // Host and env detectors would read the environment and run async probes; the name is what we need.
    autoDetectResources: false,
    textMapPropagator: new W3CTraceContextPropagator(),
    sampler: samplerFor(endpoint),
    spanProcessors: [spanProcessorFor(endpoint)],
    // Empty lists stop the SDK from falling back to its own env-configured OTLP metric and log exporters.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => isUntracedRequest(request, options.untracedPaths),
      }),
      // A query's span has no child and carries nothing on: without an exporter no one sees it.
      // Pollers (outbox relay, schedulers) would otherwise start a one-span trace per query.
      ...(endpoint ? [new PgInstrumentation({ requireParentSpan: true })] : []),
    ],
  });
  sdk.start();

  let stopping: Promise<void> | undefined;
  started = {
    serviceName: options.serviceName,
    exporting: endpoint !== undefined,
    shutdown: () => (stopping ??= sdk.shutdown()),
  };
  return started;
}

/**
 * Without an endpoint a trace this service starts is not recorded: its spans carry real ids, so
 * traceparent headers and log trace ids still join the services' logs, marked not sampled. A span
 * whose caller sampled its trace is still recorded (and dropped when it ends), so that the flag
 * it passes on keeps the trace whole for the services after it that do export.
 */
function samplerFor(endpoint: string | undefined): Sampler {
  return new ParentBasedSampler({ root: endpoint ? new AlwaysOnSampler() : new AlwaysOffSampler() });
}

/** Spans go to the collector in batches; without one, nowhere. */
function spanProcessorFor(endpoint: string | undefined): SpanProcessor {
  if (!endpoint) return new NoopSpanProcessor();
  return new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }));
}

function isUntracedRequest(request: IncomingMessage, untracedPaths: RegExp | undefined): boolean {
  const [path = ''] = (request.url ?? '').split('?', 1);
  if (UNTRACED_PATHS.has(path)) return true;
  return request.headers.traceparent === undefined && (untracedPaths?.test(path) ?? false);
}
