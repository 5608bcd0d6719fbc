/**
 * Moves committed outbox rows onto the bus, at least once and in commit order.
 *
 * One relay per schema leads at a time (a session advisory lock on a dedicated connection);
 * standbys wait and take over when the leader's connection goes. Each round first numbers the
 * rows committed since the last (one statement, so a round's numbers become visible together,
 * after every earlier round's): a row is numbered once its transaction has committed, so
 * numbers follow commit order, and a slow transaction's row comes after rows that committed
 * before it. It then publishes in sequence order with `Nats-Msg-Id` =
 * `<schema>-<seq>`, and only then marks the rows. A crash between publish and mark republishes
 * the same ids, which JetStream drops inside the stream's duplicate window.
 */
import { type NamedStatement, outboxChannel, outboxSequencedChannel } from '@careen/persistence';
import { Client, type QueryResult } from 'pg';
import { type BusLogger } from './bus-connection';
import { type EventPublisher } from './event-publisher';
import { relayStatements, type RelayStatements } from './outbox-relay-statements';

export interface OutboxRelayOptions {
  databaseUrl: string;
  schema: string;
  publisher: EventPublisher;
  logger?: BusLogger;
  batchSize?: number;
  /** Fallback poll when no NOTIFY arrives (a lost connection's, say). */
  pollIntervalMs?: number;
  /** How long published rows are kept (the exchange serves its change feed from them). */
  retainPublishedMs?: number;
  /** Called after a batch is published and before it is marked; lets tests stop the relay right there. */
  beforeMark?: (seqs: string[]) => Promise<void>;
}

interface PendingRow {
  seq: string;
  subject: string;
  type: string;
  payload: Record<string, unknown>;
  headers: Record<string, string>;
  created_at: Date;
}

const PRUNE_EVERY_MS = 60_000;

export class OutboxRelay {
  private stopped = true;
  private wake: (() => void) | undefined;
  /** Set by every NOTIFY; cleared as a round begins. */
  private notified = false;
  private sent = 0;
  private client: Client | undefined;
  private running: Promise<void> | undefined;
  private lastPrune = 0;
  /** The lock the relays of one schema compete for; its holder leads. */
  readonly key: string;
  private leading = false;
  private readonly statements: RelayStatements;

  constructor(private readonly options: OutboxRelayOptions) {
    this.key = `careen:outbox-relay:${options.schema}`;
    this.statements = relayStatements(options.schema);
  }

  /** Statements this relay has sent to Postgres, for tests that hold it to its budget. */
  get statementsSent(): number {
    return this.sent;
  }

  /** Whether this relay leads (holds its schema's lock) now. */
  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.client?.end().catch(() => undefined);
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const client = new Client({
        connectionString: this.options.databaseUrl,
        application_name: `${this.options.schema}-outbox-relay`,
      });
      this.client = client;
      client.on('error', () => this.wake?.());
      client.on('notification', () => {
        this.notified = true;
        this.wake?.();
      });
      try {
        await client.connect();
        await this.query(client, `LISTEN ${outboxChannel(this.options.schema)}`);
        await this.lead(client);
      } catch (error) {
        if (!this.stopped) {
          this.options.logger?.error(
            { schema: this.options.schema, err: String(error) },
            'outbox relay interrupted; restarting',
          );
          await this.pause(1_000);
        }
      } finally {
        this.leading = false;
        await client.end().catch(() => undefined);
      }
    }
  }

  private async lead(client: Client): Promise<void> {
    while (!this.stopped) {
      const { rows } = await this.query<{ leader: boolean }>(
        client,
        'SELECT pg_try_advisory_lock(hashtext($1)) AS leader',
        [this.key],
      );
      if (rows[0]?.leader) break;
      await this.pause(2_000);
    }
    this.leading = !this.stopped;
    const batchSize = this.options.batchSize ?? 500;
    // A former leader may have numbered rows and died before publishing them all.
    let backlog = true;
    while (!this.stopped) {
      this.notified = false;
      const rows: PendingRow[] = backlog
        ? await this.unpublished(client, batchSize)
        : await this.sequence(client, batchSize);
      const published = await this.publishAndMark(client, rows);
      await this.pruneIfDue(client);
      if (published < rows.length) {
        // The rest goes again, in order, before anything newer is numbered.
        backlog = true;
        if (published === 0) await this.pause(500);
        continue;
      }
      if (backlog) {
        backlog = rows.length === batchSize;
        continue;
      }
      // A NOTIFY during the round may be for a row committed after its snapshot; a full batch may have left more.
      if (this.notified || rows.length === batchSize) continue;
      await this.pause(this.options.pollIntervalMs ?? 1_000);
    }
  }

  /** Numbers what is ready and answers it in sequence order: one statement, its own transaction. */
  private async sequence(client: Client, batchSize: number): Promise<PendingRow[]> {
    const { rows } = await this.query<PendingRow>(client, this.statements.sequence, [
      batchSize,
      outboxSequencedChannel(this.options.schema),
    ]);
    return rows.filter((row) => row.seq !== null);
  }

  private async unpublished(client: Client, batchSize: number): Promise<PendingRow[]> {
    const { rows } = await this.query<PendingRow>(client, this.statements.unpublished, [batchSize]);
    return rows;
  }

  /** Publishes the rows and marks the unbroken prefix that was acknowledged; answers its length. */
  private async publishAndMark(client: Client, rows: readonly PendingRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const acks = await Promise.allSettled(
      rows.map((row) =>
        this.options.publisher.publishRaw({
          subject: row.subject,
          type: row.type,
          id: `${this.options.schema}-${row.seq}`,
          time: row.created_at.toISOString(),
          body: row.payload,
          headers: row.headers,
        }),
      ),
    );
    const firstFailure = acks.findIndex((ack) => ack.status === 'rejected');
    const published = (firstFailure === -1 ? rows : rows.slice(0, firstFailure)).map((row) => row.seq);
    if (firstFailure !== -1) {
      const failure = acks[firstFailure] as PromiseRejectedResult;
      this.options.logger?.warn(
        { schema: this.options.schema, err: String(failure.reason) },
        'outbox publish failed; will retry',
      );
    }
    if (published.length === 0) return 0;
    await this.options.beforeMark?.(published);
    await this.query(client, this.statements.mark, [published]);
    return published.length;
  }

  private async pruneIfDue(client: Client): Promise<void> {
    const retainMs = this.options.retainPublishedMs ?? 24 * 3_600_000;
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await this.query(client, this.statements.prune, [retainMs / 1000]);
  }

  private query<Row extends object>(
    client: Client,
    statement: string | NamedStatement,
    values?: unknown[],
  ): Promise<QueryResult<Row>> {
    this.sent += 1;
    return typeof statement === 'string'
      ? client.query<Row>(statement, values)
      : client.query<Row>(statement.config(values ?? []));
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
