/**
 * node-postgres's pool with two queues ahead of it instead of its one: when every connection is
 * in use, a query run with precedence (connection-precedence.ts) takes the next one to come
 * free before any query without, each queue first come, first served.
 *
 * In a fleet's rollout thousands of agents write their progress at once, and a burst of them
 * can keep thousands of queries waiting for one of a service's connections. The few writes of
 * the node that holds its HA group's slot (it is out of service until they are done) waited in
 * the same queue, once per write, and every other member of the group waited for them in turn.
 *
 * As many queries as the pool has connections are let through; node-postgres's own queue then
 * stays empty. A query still waiting after `connectionTimeoutMillis` fails with node-postgres's
 * own message for that wait, as it would have in its queue.
 */
import pg, { type PoolClient, type PoolConfig } from 'pg';
import { hasPrecedence } from './connection-precedence';

type Checkout = (
  error: Error | undefined,
  client: PoolClient | undefined,
  release: (error?: Error | boolean) => void,
) => void;

interface Waiter {
  admit(error?: Error): void;
  timer?: NodeJS.Timeout;
}

/** node-postgres's messages, which callers already tell apart (database-unavailable.ts). */
const TIMED_OUT = 'timeout exceeded when trying to connect';
const ENDED = 'Cannot use a pool after calling end on the pool';

export class PrecedencePool extends pg.Pool {
  /** Connections a query may still take without waiting its turn. */
  private free: number;
  private readonly first = new Set<Waiter>();
  private readonly rest = new Set<Waiter>();

  constructor(config?: PoolConfig) {
    super(config);
    this.free = this.options.max;
  }

  /** Queries waiting their turn for a connection, with precedence or not. */
  get queued(): number {
    return this.first.size + this.rest.size;
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: Checkout): void;
  override connect(callback?: Checkout): Promise<PoolClient> | void {
    if (!callback)
      return new Promise((resolve, reject) =>
        this.connect((error, client) => (error ? reject(error) : resolve(client!))),
      );
    this.awaitTurn(hasPrecedence() ? this.first : this.rest, (error) =>
      error ? callback(error, undefined, () => undefined) : this.checkOut(callback),
    );
  }

  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(callback?: () => void): Promise<void> | void {
    for (const queue of [this.first, this.rest])
      for (const waiter of queue) this.leave(queue, waiter, new Error(ENDED));
    return callback ? super.end(callback) : super.end();
  }

  private awaitTurn(queue: Set<Waiter>, admit: (error?: Error) => void): void {
    if (this.free > 0) {
      this.free--;
      return admit();
    }
    const waiter: Waiter = { admit };
    queue.add(waiter);
    const wait = this.options.connectionTimeoutMillis;
    if (wait) waiter.timer = setTimeout(() => this.leave(queue, waiter, new Error(TIMED_OUT)), wait).unref();
  }

  private leave(queue: Set<Waiter>, waiter: Waiter, error?: Error): void {
    queue.delete(waiter);
    clearTimeout(waiter.timer);
    waiter.admit(error);
  }

  /** A connection came free: the longest waiter with precedence takes it, else the longest without. */
  private pass(): void {
    for (const queue of [this.first, this.rest]) {
      const [next] = queue;
      if (next) return this.leave(queue, next);
    }
    this.free++;
  }

  private checkOut(callback: Checkout): void {
    super.connect((error, client, release) => {
      if (error || !client) {
        this.pass();
        return callback(error, undefined, release);
      }
      let held = true;
      const giveBack = (releaseError?: Error | boolean) => {
        // Given back twice, node-postgres throws here, as it always has.
        release(releaseError);
        if (!held) return;
        held = false;
        this.pass();
      };
      client.release = giveBack;
      callback(undefined, client, giveBack);
    });
  }
}
