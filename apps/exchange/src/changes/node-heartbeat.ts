/**
 * A node's poll of the change feed is its heartbeat: the exchange stamps the node's
 * `status.lastHeartbeat` with the time of the poll. It is not a change of the node: no change
 * is recorded for it, and the nodes of each stored batch are told to the other services in one
 * plain message per org (NodesSeen), which is how the agbot knows a quiet node is still there.
 *
 * A fleet polls all the time, so beats are gathered for up to FLUSH_MS and written together in
 * one statement (one at a time: beats that arrive while one runs go in the next). A poll does
 * not wait for its beat to be stored; an idle fleet costs one statement and one message a
 * second, however many nodes poll. Beats still gathered when the service stops are written
 * before its database goes. Rows are locked in key order, as every statement that locks
 * several nodes does, so a batch never deadlocks with them.
 */
import { SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { DataSource } from 'typeorm';
import { NodesSeenPublisher } from './nodes-seen.publisher';

/** How long beats are gathered before they are written. */
export const FLUSH_MS = 1_000;

interface Beat {
  org: string;
  node: string;
  at: string;
}

interface Batch {
  beats: Map<string, Beat>;
  written: Promise<void>;
  /** Writes the batch now rather than when its time is up. */
  flush(): void;
}

@Injectable()
export class NodeHeartbeat implements BeforeApplicationShutdown {
  private next: Batch | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    private readonly seen: NodesSeenPublisher,
  ) {}

  /** Resolves once the beat is stored; a failed write is logged, never thrown. */
  beat(org: string, node: string): Promise<void> {
    const batch = this.next ?? this.startBatch();
    batch.beats.set(`${org}/${node}`, { org, node, at: new Date().toISOString() });
    return batch.written;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.next?.flush();
    await this.writing;
  }

  private startBatch(): Batch {
    const beats: Batch['beats'] = new Map();
    let flush!: () => void;
    const due = new Promise<void>((resolve) => (flush = resolve));
    // The timer belongs to no request: its statement is not counted in the first poller's trace.
    const timer = context.with(ROOT_CONTEXT, () => setTimeout(flush, FLUSH_MS));
    const written = Promise.all([due, this.writing]).then(() => {
      clearTimeout(timer);
      this.next = undefined;
      return context.with(ROOT_CONTEXT, () => this.write([...beats.values()]));
    });
    this.writing = written;
    this.next = { beats, written, flush };
    return this.next;
  }

  private async write(beats: Beat[]): Promise<void> {
    try {
      // An UPDATE answers its rows and its count.
      const [stored] = (await this.dataSource.query(
        `WITH beat AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS b(org, id, at)
         ), locked AS (
           SELECT n.org, n.id, beat.at FROM exchange.nodes n JOIN beat USING (org, id)
           ORDER BY n.org, n.id FOR NO KEY UPDATE OF n
         )
         UPDATE exchange.nodes n
         SET status = jsonb_set(coalesce(n.status, '{}'::jsonb), '{lastHeartbeat}', to_jsonb(locked.at))
         FROM locked WHERE n.org = locked.org AND n.id = locked.id
         RETURNING n.org, n.id AS node`,
        [beats.map((beat) => beat.org), beats.map((beat) => beat.node), beats.map((beat) => beat.at)],
      )) as [{ org: string; node: string }[], number];
      // The batch's earliest beat: no node of it is said to be seen later than it was.
      this.seen.publish(
        beats.map((beat) => beat.at).reduce((min, at) => (at < min ? at : min)),
        stored,
      );
    } catch (error) {
      this.logger.warn({ err: String(error), nodes: beats.length }, 'node heartbeats not stored');
    }
  }
}
