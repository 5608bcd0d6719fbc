/**
 * Appends events to the outbox inside the caller's transaction. Nothing is published here:
 * if the transaction rolls back, the event never existed. Events gathered by a caller are
 * written in one statement, in the order given (the order the relay publishes them in).
 *
 * The relay is woken once the writing transaction has committed, by one NOTIFY sent on its own
 * after the commit, never by a NOTIFY inside the transaction: Postgres serializes the commits of
 * all transactions that NOTIFY (a database-wide lock held through the commit's flush), which
 * would make every writer of the database commit one at a time. Wakes asked for while a NOTIFY
 * is on its way are folded into one more; a lost wake only delays publishing until the relay's
 * next poll.
 */
import { type EventDefinition } from '@careen/contracts';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import {
  type DataSource,
  type EntityManager,
  type EntitySubscriberInterface,
  type QueryRunner,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
} from 'typeorm';
import { NamedStatement } from '../named-statement';
import { outboxChannel } from './outbox-schema.sql';

export interface OutboxAppendOptions {
  /** Extra headers to publish with the message, e.g. trace context. */
  headers?: Record<string, string>;
}

/** One message as the outbox stores it, for `appendAll`. */
export interface OutboxMessage {
  subject: string;
  type: string;
  payload: object;
  headers: Record<string, string>;
}

export class OutboxWriter {
  private readonly wakers = new WeakMap<DataSource, RelayWaker>();
  private readonly insert: NamedStatement;
  private readonly insertAll: NamedStatement;

  constructor(
    private readonly schema: string,
    private readonly headersForMessage: () => Record<string, string> = () => ({}),
  ) {
    this.insert = new NamedStatement(
      `outbox-append:${schema}`,
      `INSERT INTO "${schema}".outbox (subject, type, payload, headers) VALUES ($1, $2, $3, $4)`,
    );
    // Ids are given in the order of the arrays: the relay publishes in that order.
    this.insertAll = new NamedStatement(
      `outbox-append-all:${schema}`,
      `INSERT INTO "${schema}".outbox (subject, type, payload, headers)
       SELECT subject, type, payload, headers
       FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[]) WITH ORDINALITY
         AS m(subject, type, payload, headers, n)
       ORDER BY n`,
    );
  }

  /** The message `append` would write, for a caller that gathers several for `appendAll`. */
  message<P extends object, A extends readonly string[]>(
    event: EventDefinition<P, A>,
    subjectArgs: A,
    payload: P,
    options: OutboxAppendOptions = {},
  ): OutboxMessage {
    return {
      subject: event.subject(...subjectArgs),
      type: event.type,
      payload,
      headers: this.headers(options),
    };
  }

  /** Appends the messages in one statement, in their order, inside the caller's transaction. */
  async appendAll(manager: EntityManager, messages: readonly OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    if (!manager.queryRunner?.isTransactionActive)
      throw new Error('outbox messages must be written inside the transaction of the change they describe');
    const [first] = messages;
    await (messages.length === 1 && first
      ? this.insert.run(manager, [
          first.subject,
          first.type,
          JSON.stringify(first.payload),
          JSON.stringify(first.headers),
        ])
      : this.insertAll.run(manager, [
          messages.map((each) => each.subject),
          messages.map((each) => each.type),
          messages.map((each) => JSON.stringify(each.payload)),
          messages.map((each) => JSON.stringify(each.headers)),
        ]));
    this.written(manager);
  }

  append<P extends object, A extends readonly string[]>(
    manager: EntityManager,
    event: EventDefinition<P, A>,
    subjectArgs: A,
    payload: P,
    options: OutboxAppendOptions = {},
  ): Promise<void> {
    return this.appendAll(manager, [this.message(event, subjectArgs, payload, options)]);
  }

  /**
   * SQL appending one message for each row of `from`, each column's value an SQL expression: for
   * a caller that writes its change and the message in one statement of its own (and says so
   * with `written` once it has run).
   */
  appendFrom(
    from: string,
    values: { subject: string; type: string; payload: string; headers: string },
  ): string {
    return `INSERT INTO "${this.schema}".outbox (subject, type, payload, headers)
            SELECT ${values.subject}, ${values.type}, ${values.payload}, ${values.headers} FROM ${from}`;
  }

  /** The headers of a message whose outbox row the caller writes itself, in its own SQL. */
  headers(options: OutboxAppendOptions = {}): Record<string, string> {
    return { ...this.headersForMessage(), ...options.headers };
  }

  /**
   * Says that outbox rows were written through this manager: inside a transaction, the relay is
   * woken once it commits; outside one (a statement that committed on its own), now.
   */
  written(manager: EntityManager): void {
    const waker = this.wakerFor(manager.connection);
    const runner = manager.queryRunner;
    if (runner?.isTransactionActive) waker.afterCommitOf(runner);
    else waker.wake();
  }

  private wakerFor(dataSource: DataSource): RelayWaker {
    let waker = this.wakers.get(dataSource);
    if (!waker) {
      waker = new RelayWaker(dataSource, outboxChannel(this.schema));
      this.wakers.set(dataSource, waker);
      dataSource.subscribers.push(waker);
    }
    return waker;
  }
}

/** The relay's wake-up, sent after most commits of the agent path: named, so planned once per connection. */
const WAKE = new NamedStatement('outbox-wake', 'SELECT pg_notify($1, $2)');

/** Sends the relay's NOTIFY for one data source, at most one at a time, after the commits that need it. */
class RelayWaker implements EntitySubscriberInterface {
  private readonly pending = new WeakSet<QueryRunner>();
  private sending = false;
  private again = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channel: string,
  ) {}

  afterCommitOf(runner: QueryRunner): void {
    this.pending.add(runner);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    // A nested transaction's commit releases a savepoint: only the outermost one publishes.
    if (event.queryRunner.isTransactionActive) return;
    if (this.pending.delete(event.queryRunner)) this.wake();
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) this.pending.delete(event.queryRunner);
  }

  wake(): void {
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = true;
    void this.send();
  }

  private async send(): Promise<void> {
    const notify = () => WAKE.run(this.dataSource, [this.channel, '']);
    let first = true;
    do {
      this.again = false;
      if (!this.dataSource.isInitialized) break;
      try {
        // The first NOTIFY is the work of the commit that asked for it, traced with it; one
        // asked for meanwhile serves other commits, and is traced with none.
        await (first ? notify() : context.with(ROOT_CONTEXT, notify));
      } catch {
        // The relay's poll picks the rows up anyway; a wake is only a shortcut.
      }
      first = false;
    } while (this.again);
    this.sending = false;
  }
}
