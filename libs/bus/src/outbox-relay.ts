/**
 * Moves committed outbox rows onto the bus, at least once and in commit order.
 *
 * One relay per schema leads at a time (a session advisory lock on a dedicated connection);
 * standbys wait and take over when the leader's connection goes. Each round first sequences
 * rows whose writing transaction is older than every transaction still running (snapshot
 * xmin), so a slow transaction's row can never be numbered after rows that committed later
 * yet published before it; then publishes in sequence order with `Nats-Msg-Id` =
 * `<schema>-<seq>`, and only then marks the rows. A crash between publish and mark republishes
 * the same ids, which JetStream drops inside the stream's duplicate window.
 */
import { outboxChannel, outboxSequencedChannel } from '@careen/persistence';
import { Client } from 'pg';
import { type BusLogger } from './bus-connection';
import { type EventPublisher } from './event-publisher';

/** First pause before looking again at rows held back by an older transaction; doubles each time. */
const HELD_BACK_FIRST_PAUSE_MS = 5;

export interface OutboxRelayOptions {
  databaseUrl: string;
  schema: string;
  publisher: EventPublisher;
  logger?: BusLogger;
  batchSize?: number;
  /** Fallback poll when no NOTIFY arrives (e.g. rows held back by an older running transaction). */
  pollIntervalMs?: number;
  /** How long published rows are kept (the exchange serves its change feed from them). */
  retainPublishedMs?: number;
  /** Called after a batch is published and before it is marked; lets tests stop the relay right there. */
  beforeMark?: (seqs: string[]) => Promise<void>;
  /** Called after each round that found committed rows held back by an older open transaction. */
  onHeldBack?: () => void;
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
  private client: Client | undefined;
  private running: Promise<void> | undefined;
  private lastPrune = 0;
  private readonly table: string;
  /** The lock the relays of one schema compete for; its holder leads. */
  readonly key: string;
  private leading = false;

  constructor(private readonly options: OutboxRelayOptions) {
    this.table = `"${options.schema}".outbox`;
    this.key = `careen:outbox-relay:${options.schema}`;
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
      client.on('notification', () => this.wake?.());
      try {
        await client.connect();
        await client.query(`LISTEN ${outboxChannel(this.options.schema)}`);
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
      const { rows } = await client.query<{ leader: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS leader',
        [this.key],
      );
      if (rows[0]?.leader) break;
      await this.pause(2_000);
    }
    this.leading = !this.stopped;
    let heldBackPause = HELD_BACK_FIRST_PAUSE_MS;
    while (!this.stopped) {
      const moved = await this.relayOnce(client);
      await this.pruneIfDue(client);
      if (moved > 0) {
        heldBackPause = HELD_BACK_FIRST_PAUSE_MS;
      } else if (await this.heldBack(client)) {
        this.options.onHeldBack?.();
        // Committed rows wait for an older transaction (anywhere in the cluster) to end, and no
        // NOTIFY says when it does: look again soon rather than at the next fallback poll.
        await this.pause(heldBackPause);
        heldBackPause = Math.min(heldBackPause * 2, this.options.pollIntervalMs ?? 1_000);
      } else {
        await this.pause(this.options.pollIntervalMs ?? 1_000);
      }
    }
  }

  private async heldBack(client: Client): Promise<boolean> {
    const { rows } = await client.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${this.table} WHERE seq IS NULL) AS held`,
    );
    return rows[0]?.held ?? false;
  }

  /** One round: sequence what is safe to number, then publish and mark. Returns messages published. */
  private async relayOnce(client: Client): Promise<number> {
    await this.sequence(client);
    const batchSize = this.options.batchSize ?? 500;
    const { rows } = await client.query<PendingRow>(
      `SELECT seq::text AS seq, subject, type, payload, headers, created_at FROM ${this.table}
       WHERE published_at IS NULL AND seq IS NOT NULL ORDER BY seq LIMIT $1`,
      [batchSize],
    );
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
    // Mark only the unbroken prefix that was acknowledged; the rest goes again, in order.
    const firstFailure = acks.findIndex((ack) => ack.status === 'rejected');
    const published = (firstFailure === -1 ? rows : rows.slice(0, firstFailure)).map((row) => row.seq);
    if (firstFailure !== -1) {
      const failure = acks[firstFailure] as PromiseRejectedResult;
      this.options.logger?.warn(
        { schema: this.options.schema, err: String(failure.reason) },
        'outbox publish failed; will retry',
      );
    }
    if (published.length === 0) {
      await this.pause(500);
      return 0;
    }
    await this.options.beforeMark?.(published);
    await client.query(
      `UPDATE ${this.table} SET published_at = clock_timestamp() WHERE seq = ANY($1::bigint[])`,
      [published],
    );
    return published.length;
  }

  private async sequence(client: Client): Promise<void> {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ id: string }>(
        `SELECT id::text AS id FROM ${this.table}
         WHERE seq IS NULL AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
         ORDER BY id LIMIT $1 FOR UPDATE`,
        [this.options.batchSize ?? 500],
      );
      if (rows.length > 0) {
        const { rows: seqs } = await client.query<{ seq: string }>(
          `SELECT nextval('"${this.options.schema}".outbox_seq')::text AS seq FROM generate_series(1, $1)`,
          [rows.length],
        );
        const ordered = seqs.map((row) => BigInt(row.seq)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        await client.query(
          `UPDATE ${this.table} AS o SET seq = v.seq FROM unnest($1::bigint[], $2::bigint[]) AS v(id, seq) WHERE o.id = v.id`,
          [rows.map((row) => row.id), ordered.map(String)],
        );
        // Readers of the sequenced rows (the exchange's change feed) wake on this, at commit.
        await client.query('SELECT pg_notify($1, $2)', [
          outboxSequencedChannel(this.options.schema),
          String(ordered[ordered.length - 1]),
        ]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  private async pruneIfDue(client: Client): Promise<void> {
    const retainMs = this.options.retainPublishedMs ?? 24 * 3_600_000;
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await client.query(
      `DELETE FROM ${this.table} WHERE published_at IS NOT NULL AND published_at < clock_timestamp() - make_interval(secs => $1)`,
      [retainMs / 1000],
    );
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
