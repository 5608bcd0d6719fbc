/**
 * Publishes typed events to JetStream with CloudEvents headers, trace context and
 * `Nats-Msg-Id` = `ce-id`, so a republish of the same event is dropped by the stream.
 */
import { type EventDefinition } from '@careen/contracts';
import { extractTraceContext, injectTraceContext, recordCarrier, withPublishSpan } from '@careen/telemetry';
import { context } from '@opentelemetry/api';
import { type JetStreamClient, type PubAck } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { cloudEventHeaders } from './cloud-event-headers';

export interface RawPublish {
  subject: string;
  type: string;
  id: string;
  time: string;
  body: unknown;
  /** Headers captured when the message was produced (trace context of the original request). */
  headers?: Record<string, string>;
}

export class EventPublisher {
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly js: JetStreamClient,
    /** CloudEvents `source`, e.g. `careen/exchange`. */
    private readonly source: string,
  ) {}

  publish<P extends object, A extends readonly string[]>(
    event: EventDefinition<P, A>,
    subjectArgs: A,
    payload: P,
    options: { id?: string; time?: Date; headers?: Record<string, string> } = {},
  ): Promise<PubAck> {
    return this.publishRaw({
      subject: event.subject(...subjectArgs),
      type: event.type,
      id: options.id ?? randomUUID(),
      time: (options.time ?? new Date()).toISOString(),
      body: payload,
      headers: options.headers,
    });
  }

  /**
   * Publishes an already-encoded event (the outbox relay's path). An event that carries the
   * trace context of the change that wrote it continues that trace: its publish span is a child
   * of that context, and the message carries the publish span's own.
   */
  publishRaw(message: RawPublish): Promise<PubAck> {
    // Without stored trace context this is the active one.
    const parent = extractTraceContext(recordCarrier(message.headers ?? {}), context.active());
    return withPublishSpan(
      message.subject,
      async () => {
        const h = cloudEventHeaders(
          { id: message.id, type: message.type, source: this.source, time: message.time },
          message.headers,
        );
        // The stored context gives way to the publish span's.
        injectTraceContext(h);
        return this.js.publish(message.subject, this.encoder.encode(JSON.stringify(message.body)), {
          msgID: message.id,
          headers: h,
        });
      },
      parent,
    );
  }
}
