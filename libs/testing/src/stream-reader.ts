/**
 * Reads what a JetStream stream holds, from its first message, through a throw-away consumer,
 * to check what services published.
 */
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { randomBytes } from 'node:crypto';

export interface StreamMessage {
  subject: string;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export async function readStream(
  bus: { js: JetStreamClient; jsm: JetStreamManager },
  stream: string,
  options: { count: number; filterSubject?: string; timeoutMs?: number },
): Promise<StreamMessage[]> {
  const name = `test-reader-${randomBytes(4).toString('hex')}`;
  await bus.jsm.consumers.add(stream, {
    name,
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
    ...(options.filterSubject ? { filter_subject: options.filterSubject } : {}),
  });
  try {
    const consumer = await bus.js.consumers.get(stream, name);
    const seen: StreamMessage[] = [];
    while (seen.length < options.count) {
      const message = await consumer.next({ expires: options.timeoutMs ?? 10_000 });
      if (!message) throw new Error(`only ${seen.length} of ${options.count} messages arrived on ${stream}`);
      const headers: Record<string, string> = {};
      for (const [key, values] of message.headers ?? []) headers[key] = values[0] ?? '';
      seen.push({ subject: message.subject, headers, body: message.json() });
    }
    return seen;
  } finally {
    await bus.jsm.consumers.delete(stream, name).catch(() => undefined);
  }
}
