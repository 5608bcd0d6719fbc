/**
 * Appends events to the outbox inside the caller's transaction. Nothing is published here:
 * if the transaction rolls back, the event never existed.
 */
import { type EventDefinition } from '@careen/contracts';
import { type EntityManager } from 'typeorm';
import { outboxChannel } from './outbox-schema.sql';

export interface OutboxAppendOptions {
  /** Extra headers to publish with the message, e.g. trace context. */
  headers?: Record<string, string>;
}

export class OutboxWriter {
  constructor(
    private readonly schema: string,
    private readonly headersForMessage: () => Record<string, string> = () => ({}),
  ) {}

  async append<P extends object, A extends readonly string[]>(
    manager: EntityManager,
    event: EventDefinition<P, A>,
    subjectArgs: A,
    payload: P,
    options: OutboxAppendOptions = {},
  ): Promise<void> {
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error('outbox messages must be written inside the transaction of the change they describe');
    }
    const headers = { ...this.headersForMessage(), ...options.headers };
    await manager.query(
      `INSERT INTO "${this.schema}".outbox (subject, type, payload, headers) VALUES ($1, $2, $3, $4)`,
      [event.subject(...subjectArgs), event.type, JSON.stringify(payload), JSON.stringify(headers)],
    );
    await manager.query('SELECT pg_notify($1, $2)', [outboxChannel(this.schema), '']);
  }
}
