/**
 * Owns the JSON log line: one object per line with service, level label, ISO time and the
 * active trace ids, so logs join traces. It never decides where lines go beyond its destination.
 */
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';

export interface LoggerOptions {
  /** pino level name; `info` unless given. */
  level?: string;
  /** Where lines are written; stdout unless given. */
  destination?: DestinationStream;
}

export type JsonLogger = Logger;

export function createLogger(service: string, options: LoggerOptions = {}): JsonLogger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: activeTraceIds,
    },
    options.destination,
  );
}

function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
