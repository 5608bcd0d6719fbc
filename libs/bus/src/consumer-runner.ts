/**
 * Runs a durable pull consumer `<service>-<purpose>`: explicit ack, bounded redelivery with
 * backoff, validation before the handler, dead-letter with the reason. Messages are handled
 * one at a time, in stream order, so a handler sees each aggregate's events in order — or, for
 * a batch handler, the messages already waiting together, in stream order. A
 * consumer made for the caller by someone else (`given`, e.g. a NATS subscription's) is read as
 * it is: never created or changed, and what cannot be handled is terminated, not dead-lettered
 * (such a user may publish nowhere but its replies).
 */
import { prepareCompiledCheck, type EventDefinition, type CloudEventAttributes } from '@careen/contracts';
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
import { retryTransient } from './jetstream-retry';
import { retryDelayMs } from './retry-delay';

export interface BusMessage<P> {
  subject: string;
  payload: P;
  attributes: CloudEventAttributes;
  /** Every header of the message, by name (the actor's, the trace context's, …). */
  headers: ReadonlyMap<string, string>;
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
  /** Handles each message, one at a time. */
  handler?: (message: BusMessage<P>) => Promise<void>;
  /**
   * Instead of `handler`: the messages already waiting (up to `maxBatch`), handled together,
   * in stream order, and acknowledged together. When a batch fails, each of its messages is
   * handled again on its own, and only those that fail alone are tried again later; a handler
   * that took some of a batch and knows which failed throws `BatchFailures` naming them, and
   * only those are tried again (later), the others being acknowledged as taken.
   */
  batchHandler?: (messages: BusMessage<P>[]) => Promise<void>;
  /** Most messages given to `batchHandler` at once (default 128). */
  maxBatch?: number;
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

/**
 * Thrown by a batch handler that took the rest of its batch: the messages that failed, each
 * with its error. They are tried again after the backoff (or dead-lettered), on their own; the
 * others are acknowledged, not handled again.
 */
export class BatchFailures<P> extends Error {
  constructor(readonly failures: ReadonlyMap<BusMessage<P>, unknown>) {
    super(
      `${failures.size} message(s) of the batch failed: ${[...failures.values()].map(String).join('; ')}`,
    );
    this.name = 'BatchFailures';
  }
}

export interface RunningConsumer {
  readonly name: string;
  stop(): Promise<void>;
}

export async function runConsumer<P extends object, A extends readonly string[]>(
  options: ConsumerOptions<P, A>,
): Promise<RunningConsumer> {
  const handleBatch = batchHandlerOf(options);
  const name = options.given ?? `${options.service}-${options.purpose}`;
  const maxDeliver = options.maxDeliver ?? 5;
  const backoff = options.backoffMs ?? [1_000, 5_000, 15_000, 30_000];
  const deadLetters = options.given ? undefined : new DeadLetters(options.bus.js, options.service);
  prepareCompiledCheck(options.event.payload, 'body');
  // At start, right after another replica made the stream or the consumer, the cluster may
  // still be electing its leader.
  if (!options.given) await retryTransient(() => ensureDurable(options, name, maxDeliver));

  const consumer = await retryTransient(() => options.bus.js.consumers.get(options.event.stream, name));
  const stats = options.bus.stats.consumer(name, options.event.stream);
  let messages: ConsumerMessages | undefined;
  let stopped = false;

  interface Decoded {
    message: JsMsg;
    busMessage: BusMessage<P>;
    headers: Map<string, string>;
  }

  /** The message as its handler gets it, or undefined once it is dead-lettered. */
  const decode = async (message: JsMsg): Promise<Decoded | undefined> => {
    const headers = headerLookup(message.headers);
    const decoded = decodeMessage(options.event.payload, options.event.type, message.data, headers);
    if (!decoded.ok) {
      options.logger?.warn(
        { consumer: name, subject: message.subject, reason: decoded.reason },
        'dead-lettering invalid message',
      );
      await deadLetters?.send(message, decoded.reason);
      message.term(decoded.reason);
      if (deadLetters) stats.deadLetters['invalid-message']++;
      return undefined;
    }
    // Each read of `message.info` parses the reply subject again: read it once.
    const info = message.info;
    if (info.deliveryCount > 1) stats.redeliveries++;
    const busMessage: BusMessage<P> = {
      subject: message.subject,
      payload: decoded.payload,
      attributes: decoded.attributes,
      headers,
      deliveryCount: info.deliveryCount,
      streamSequence: info.streamSequence,
    };
    return { message, busMessage, headers };
  };

  /** Tried again after a backoff, or dead-lettered once it has failed `maxDeliver` times. */
  const failed = async ({ message, busMessage }: Decoded, error: unknown): Promise<void> => {
    const reason = error instanceof Error ? error.message : String(error);
    const attempt = busMessage.deliveryCount;
    if (attempt >= maxDeliver) {
      options.logger?.error(
        { consumer: name, subject: message.subject, reason },
        'handler kept failing; dead-lettering',
      );
      await deadLetters?.send(message, `handler failed after ${attempt} attempts: ${reason}`);
      message.term(reason);
      if (deadLetters) stats.deadLetters['handler-failed']++;
    } else {
      options.logger?.warn(
        { consumer: name, subject: message.subject, reason, attempt },
        'handler failed; will retry',
      );
      message.nak(retryDelayMs(backoff, attempt));
    }
  };

  /** Acknowledges what the handler took; what it names as failed is tried again later. */
  const settle = async (decoded: readonly Decoded[], { failures }: BatchFailures<P>): Promise<void> => {
    for (const each of decoded) {
      if (!failures.has(each.busMessage)) each.message.ack();
      else await failed(each, failures.get(each.busMessage));
    }
  };

  /** Handles the messages together and acknowledges them, or throws. */
  const handleTogether = async (decoded: readonly Decoded[]): Promise<void> => {
    // Each message's trace shows it consumed: a span of its own for each, lasting the batch's
    // work, whose statements are traced under the first message's.
    const work = decoded.reduce<() => Promise<void>>(
      (inner, each) => () => withConsumeSpan(each.message.subject, traceCarrier(each.headers), inner),
      () => handleBatch(decoded.map((each) => each.busMessage)),
    );
    await work();
    for (const each of decoded) each.message.ack();
  };
  const handle = async (batch: JsMsg[]): Promise<void> => {
    const decoded = (await Promise.all(batch.map(decode))).filter((each) => each !== undefined);
    const first = decoded[0];
    if (!first) return;
    try {
      await handleTogether(decoded);
    } catch (error) {
      if (error instanceof BatchFailures) return settle(decoded, error as BatchFailures<P>);
      if (decoded.length === 1) return failed(first, error);
      // Perhaps one message fails the lot: each is tried on its own, so that only such a one
      // is tried again later, or dead-lettered, and the others are not held back with it.
      for (const each of decoded) await handleTogether([each]).catch((alone: unknown) => failed(each, alone));
    }
  };

  const maxBatch = options.batchHandler ? (options.maxBatch ?? 128) : 1;
  const loop = (async () => {
    while (!stopped) {
      try {
        const current = await consumer.consume({
          max_messages: Math.min(options.maxAckPending ?? 256, Math.max(256, maxBatch)),
        });
        messages = current;
        const iterator = current[Symbol.asyncIterator]();
        // A next message asked for but not here yet: the first of the next batch.
        let carried: Promise<IteratorResult<JsMsg>> | undefined;
        for (;;) {
          const first = await (carried ?? iterator.next());
          carried = undefined;
          if (first.done) break;
          const batch = [first.value];
          // What is already here joins the batch; nothing is waited for.
          while (batch.length < maxBatch) {
            const next = iterator.next();
            const ready = await Promise.race([
              next,
              new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined))),
            ]);
            if (ready === undefined) {
              carried = next;
              break;
            }
            if (ready.done) break;
            batch.push(ready.value);
          }
          try {
            await handle(batch);
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

/** What each batch is given to: exactly one of the handlers; a one-message handler gets batches of one. */
function batchHandlerOf<P extends object>({
  handler,
  batchHandler,
}: Pick<ConsumerOptions<P, readonly string[]>, 'handler' | 'batchHandler'>): (
  messages: BusMessage<P>[],
) => Promise<void> {
  if (batchHandler && !handler) return batchHandler;
  if (handler && !batchHandler)
    return async (messages) => {
      for (const message of messages) await handler(message);
    };
  throw new Error('a consumer takes a handler or a batch handler');
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
