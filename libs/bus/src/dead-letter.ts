/**
 * Sends a message that cannot be handled to `careen.dlq.<service>` with the reason and its
 * original subject and headers. The original is only acknowledged after this succeeds, so a
 * message is never silently dropped.
 */
import { DLQ_ORIGINAL_SUBJECT_HEADER, DLQ_REASON_HEADER, deadLetterSubject } from '@careen/contracts';
import { type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';

export class DeadLetters {
  constructor(
    private readonly js: JetStreamClient,
    private readonly service: string,
  ) {}

  async send(message: JsMsg, reason: string): Promise<void> {
    const h = natsHeaders();
    for (const [key, values] of message.headers ?? []) for (const value of values) h.append(key, value);
    h.set(DLQ_REASON_HEADER, reason.slice(0, 1024));
    h.set(DLQ_ORIGINAL_SUBJECT_HEADER, message.subject);
    await this.js.publish(deadLetterSubject(this.service), message.data, {
      headers: h,
      msgID: `dlq-${message.info.stream}-${message.info.streamSequence}`,
    });
  }
}
