/**
 * Runs a durable pull consumer `<service>-<purpose>`: explicit ack, bounded redelivery with
 * backoff, validation before the handler, dead-letter with the reason. Messages are handled
 * one at a time, in stream order, so a handler sees each aggregate's events in order. A
 * consumer made for the caller by someone else (`given`, e.g. a NATS subscription's) is read as
 * it is: never created or changed, and what cannot be handled is terminated, not dead-lettered
 * (such a user may publish nowhere but its replies).
 */
import { type EventDefinition, type CloudEventAttributes } from '@careen/contracts';
import { withConsumeSpan } from '@careen/telemetry';
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { type BusConnection, type BusLogger } from './bus-connection';
import { DeadLetters } from './dead-letter';
import { headerLookup } from './cloud-event-headers';
import { decodeMessage } from './message-decoder';
import { retryDelayMs } from './retry-delay';

export interface BusMessage<P> {
  subject: string;
  payload: P;
  attributes: CloudEventAttributes;
  deliveryCount: number;
  streamSequence: number;
}

export interface ConsumerOptions<P extends object, A extends readonly string[]> {
  bus: BusConnection;
  service: string;
  purpose: string;
  event: EventDefinition<P, A>;
  /** Narrower than the event's filter, e.g. one org's changes. */
  filterSubject?: string;
  handler: (message: BusMessage<P>) => Promise<void>;
  /** Total deliveries before a failing message is dead-lettered. */
  maxDeliver?: number;
  /** Delays between attempts; the last repeats. */
  backoffMs?: readonly number[];
  /** Outstanding unacknowledged messages; set deliberately, the server default stalls silently. */
  maxAckPending?: number;
  ackWaitMs?: number;
  logger?: BusLogger;
  /** The name of a consumer someone else made to be read by this one. */
  given?: string;
}

export interface RunningConsumer {
  readonly name: string;
  stop(): Promise<void>;
}

export async function runConsumer<P extends object, A extends readonly string[]>(
  options: ConsumerOptions<P, A>,
): Promise<RunningConsumer> {
  const name = options.given ?? `${options.service}-${options.purpose}`;
  const maxDeliver = options.maxDeliver ?? 5;
  const backoff = options.backoffMs ?? [1_000, 5_000, 15_000, 30_000];
  const deadLetters = options.given ? undefined : new DeadLetters(options.bus.js, options.service);
  if (!options.given) await ensureDurable(options, name, maxDeliver);

  const consumer = await options.bus.js.consumers.get(options.event.stream, name);
  let messages: ConsumerMessages | undefined;
  let stopped = false;

  const handle = async (message: JsMsg): Promise<void> => {
    const headers = headerLookup(message.headers);
    const decoded = decodeMessage(options.event.payload, options.event.type, message.data, headers);
    if (!decoded.ok) {
      options.logger?.warn(
        { consumer: name, subject: message.subject, reason: decoded.reason },
        'dead-lettering invalid message',
      );
      await deadLetters?.send(message, decoded.reason);
      message.term(decoded.reason);
      return;
    }
    // Each read of `message.info` parses the reply subject again: read it once.
    const info = message.info;
    const busMessage: BusMessage<P> = {
      subject: message.subject,
      payload: decoded.payload,
      attributes: decoded.attributes,
      deliveryCount: info.deliveryCount,
      streamSequence: info.streamSequence,
    };
    try {
      await withConsumeSpan(message.subject, traceCarrier(headers), () => options.handler(busMessage));
      message.ack();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (info.deliveryCount >= maxDeliver) {
        options.logger?.error(
          { consumer: name, subject: message.subject, reason },
          'handler kept failing; dead-lettering',
        );
        await deadLetters?.send(message, `handler failed after ${info.deliveryCount} attempts: ${reason}`);
        message.term(reason);
      } else {
        options.logger?.warn(
          { consumer: name, subject: message.subject, reason, attempt: info.deliveryCount },
          'handler failed; will retry',
        );
        message.nak(retryDelayMs(backoff, info.deliveryCount));
      }
    }
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        messages = await consumer.consume({ max_messages: Math.min(options.maxAckPending ?? 256, 256) });
        for await (const message of messages) {
          try {
            await handle(message);
          } catch (error) {
            // Could not even dead-letter (bus down): leave it unacknowledged for redelivery.
            options.logger?.error({ consumer: name, err: String(error) }, 'message left for redelivery');
          }
        }
      } catch (error) {
        if (stopped) break;
        options.logger?.error({ consumer: name, err: String(error) }, 'consumer interrupted; resuming');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  })();

  return {
    name,
    stop: async () => {
      stopped = true;
      await messages?.close();
      await loop.catch(() => undefined);
    },
  };
}

async function ensureDurable<P extends object, A extends readonly string[]>(
  options: ConsumerOptions<P, A>,
  name: string,
  maxDeliver: number,
): Promise<void> {
  const config = {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: options.filterSubject ?? options.event.filter,
    max_deliver: maxDeliver,
    ack_wait: nanos(options.ackWaitMs ?? 30_000),
    max_ack_pending: options.maxAckPending ?? 256,
  };
  try {
    await options.bus.jsm.consumers.info(options.event.stream, name);
    await options.bus.jsm.consumers.update(options.event.stream, name, {
      max_deliver: config.max_deliver,
      ack_wait: config.ack_wait,
      max_ack_pending: config.max_ack_pending,
    });
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound))
      throw error;
    await options.bus.jsm.consumers.add(options.event.stream, config);
  }
}

function traceCarrier(headers: Map<string, string>) {
  return { get: (key: string) => headers.get(key) ?? '', set: () => undefined };
}
