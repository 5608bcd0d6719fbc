/**
 * Owns trace context on the bus: W3C `traceparent`/`tracestate` in message headers, and the
 * publish/consume spans around them. It never imports a NATS client; headers are structural.
 */
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** The part of NATS `MsgHdrs` this module needs; `get` returns '' for a missing key, as NATS does. */
export interface HeaderCarrier {
  get(key: string): string;
  set(key: string, value: string): void;
  has?(key: string): boolean;
}

const TRACER_NAME = '@careen/telemetry';
const MESSAGING_SYSTEM = 'nats';

// Messages always carry W3C headers, whichever propagator the process registered globally (if any).
const propagator = new W3CTraceContextPropagator();

const setter: TextMapSetter<HeaderCarrier> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<HeaderCarrier> = {
  get: (carrier, key) => {
    if (carrier.has && !carrier.has(key)) return undefined;
    return carrier.get(key) || undefined;
  },
  // The W3C propagator reads fixed keys only.
  keys: () => [],
};

/** Headers held in a plain record (an outbox row's, say) as a carrier. */
export function recordCarrier(record: Record<string, string>): HeaderCarrier {
  return { get: (key) => record[key] ?? '', set: (key, value) => void (record[key] = value) };
}

/** Writes `traceparent` (and `tracestate` when there is one) for the span active in `from`. */
export function injectTraceContext(carrier: HeaderCarrier, from: Context = context.active()): void {
  propagator.inject(from, carrier, setter);
}

/**
 * The remote context carried by a message, on top of `base`. The base defaults to the root
 * context so a message without headers starts a new trace instead of joining whatever the
 * consumer loop happened to be running in.
 */
export function extractTraceContext(carrier: HeaderCarrier, base: Context = ROOT_CONTEXT): Context {
  return propagator.extract(base, carrier, getter);
}

/**
 * Runs `publish` inside a PRODUCER span for `subject`, child of `parent` (the active context by
 * default); headers injected inside it point at this span.
 */
export function withPublishSpan<T>(
  subject: string,
  publish: (span: Span) => T | Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  return runInSpan({ kind: SpanKind.PRODUCER, operation: 'send', subject, parent }, publish);
}

/** Runs `consume` inside a CONSUMER span for `subject`, child of the trace context in `carrier`. */
export function withConsumeSpan<T>(
  subject: string,
  carrier: HeaderCarrier,
  consume: (span: Span) => T | Promise<T>,
): Promise<T> {
  const parent = extractTraceContext(carrier);
  return runInSpan({ kind: SpanKind.CONSUMER, operation: 'process', subject, parent }, consume);
}

interface MessagingSpan {
  kind: SpanKind.PRODUCER | SpanKind.CONSUMER;
  /** Semantic-conventions operation type. */
  operation: 'send' | 'process';
  subject: string;
  parent: Context;
}

async function runInSpan<T>(spec: MessagingSpan, work: (span: Span) => T | Promise<T>): Promise<T> {
  const name = `${spec.operation === 'send' ? 'publish' : 'process'} ${spec.subject}`;
  const attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.destination.name': spec.subject,
    'messaging.operation.type': spec.operation,
  };
  const tracer = trace.getTracer(TRACER_NAME);
  return tracer.startActiveSpan(name, { kind: spec.kind, attributes }, spec.parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

function recordFailure(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    span.recordException(String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
  }
}
