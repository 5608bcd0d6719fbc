/**
 * The newest changes, kept in memory and followed live, so that thousands of long-polling
 * agents are answered without a query each. The relay's "sequenced" NOTIFY wakes it (from
 * whichever exchange replica leads the relay); a one-second refresh covers a lost notification.
 * New changes are read on the connection that listens, not one of the pool's: however many
 * requests queue for those, a change reaches the waiting agents at once; while that connection is
 * lost, the pool's are read instead and it is tried again every second. Callers further behind
 * than the memory holds read the log from Postgres instead.
 */
import { outboxSequencedChannel } from '@careen/persistence';
import { SERVICE_CONFIG, SERVICE_LOGGER, type ServiceConfig } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { ChangeLogRepository } from './change-log.repository';
import { type ChangeRecord } from './change-record';
import { nodeScopeOf, nodeScopes } from './change-visibility';

const CAPACITY = 20_000;
const REFRESH_BATCH = 5_000;
const SAFETY_REFRESH_MS = 1_000;
/** The pause before listening again once the listening connection is lost. */
const RELISTEN_MS = 1_000;

@Injectable()
export class ChangeTail implements OnModuleInit, OnModuleDestroy {
  private recent: ChangeRecord[] = [];
  /**
   * The same changes by node scope, so a node's poll reads only what it may see instead of
   * filtering everything the fleet reported since its last poll. Entries older than `recent`
   * are swept out once per CAPACITY changes.
   */
  private scoped = new Map<string, ChangeRecord[]>();
  private appendedSinceSweep = 0;
  private latest = 0;
  /** Waiting pollers, each with what concerns it: a new change wakes only those it concerns. */
  private waiters = new Map<() => void, (change: ChangeRecord) => boolean>();
  /**
   * Waiting nodes by the node scopes they see, so a change is checked against the pollers of
   * its scope only, not against the whole waiting fleet.
   */
  private waitersByScope = new Map<string, Set<() => void>>();
  /** Waiting users: each is checked against every new change. */
  private unscoped = new Set<() => void>();
  private refreshing: Promise<void> = Promise.resolve();
  private listener: Client | undefined;
  /** The listening connection while it is up: new changes are read on it. */
  private reader: Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly log: ChangeLogRepository,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    this.latest = await this.log.latestId();
    await this.listen();
    this.timer = setInterval(() => void this.refresh(), SAFETY_REFRESH_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const wake of [...this.waiters.keys()]) wake();
    this.reader = undefined;
    await this.listener?.end().catch(() => undefined);
  }

  /** Whether the replica is stopping: its waits end at once, so its polls answer now. */
  get closed(): boolean {
    return this.stopped;
  }

  /** How many long-polls are waiting on this replica. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** The highest change id this replica knows of. */
  latestId(): number {
    return this.latest;
  }

  /**
   * Whether memory holds every change after `since`: then none of them can have been pruned
   * from the log, whatever the log's retention.
   */
  covers(since: number): boolean {
    const first = this.recent[0];
    return since >= this.latest || (first !== undefined && since >= first.id - 1);
  }

  /** Changes after `since` (any org), from memory when it reaches that far back, else from Postgres. */
  async after(since: number, limit: number, org: string): Promise<ChangeRecord[]> {
    if (since >= this.latest) return [];
    const first = this.recent[0];
    if (first && since >= first.id - 1) {
      const start = firstAfter(this.recent, since);
      return this.recent.slice(start, start + limit);
    }
    return this.log.after(since, limit, org);
  }

  /**
   * Resolves when a change after `seen` that `concerns` the caller arrives, after `timeoutMs`,
   * or when `signal` aborts; at once when changes after `seen` came before the call. Only the
   * pollers a change concerns are woken, so a fleet's status reports do not wake every agent.
   * A node passes its `nodeScopes`: only changes in them are checked against it.
   */
  waitForChanges(
    seen: number,
    concerns: (change: ChangeRecord) => boolean,
    timeoutMs: number,
    signal: AbortSignal,
    scopes: readonly string[] = [],
  ): Promise<void> {
    if (this.stopped || signal.aborted || this.latest > seen) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        this.unscoped.delete(done);
        for (const scope of scopes) {
          const waiting = this.waitersByScope.get(scope);
          waiting?.delete(done);
          if (waiting?.size === 0) this.waitersByScope.delete(scope);
        }
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done);
      this.waiters.set(done, concerns);
      if (scopes.length === 0) this.unscoped.add(done);
      for (const scope of scopes) {
        const waiting = this.waitersByScope.get(scope);
        if (waiting) waiting.add(done);
        else this.waitersByScope.set(scope, new Set([done]));
      }
    });
  }

  /** Wakes the waiters `fresh` concerns: scoped ones through their scopes, the rest one by one. */
  private wakeFor(fresh: readonly ChangeRecord[], byScope: ReadonlyMap<string, ChangeRecord[]>): void {
    for (const [scope, changes] of byScope) {
      for (const wake of [...(this.waitersByScope.get(scope) ?? [])]) {
        const concerns = this.waiters.get(wake);
        if (concerns && changes.some(concerns)) wake();
      }
    }
    for (const wake of [...this.unscoped]) {
      const concerns = this.waiters.get(wake);
      if (concerns && fresh.some(concerns)) wake();
    }
  }

  /**
   * The changes after `since` that the node may see, in id order, at most `limit`; undefined
   * when memory does not reach back that far (the caller reads Postgres instead).
   */
  visibleToNode(since: number, limit: number, org: string, node: string): ChangeRecord[] | undefined {
    if (!this.covers(since)) return undefined;
    const lists = nodeScopes(org, node)
      .map((scope) => this.scoped.get(scope))
      .filter((list): list is ChangeRecord[] => list !== undefined);
    const cursors = lists.map((list) => ({ list, at: firstAfter(list, since) }));
    const page: ChangeRecord[] = [];
    // A merge of lists each in id order: take the lowest of their next changes each time.
    while (page.length < limit) {
      let lowest: { cursor: (typeof cursors)[number]; change: ChangeRecord } | undefined;
      for (const cursor of cursors) {
        const change = cursor.list[cursor.at];
        if (change && (!lowest || change.id < lowest.change.id)) lowest = { cursor, change };
      }
      if (!lowest) break;
      page.push(lowest.change);
      lowest.cursor.at++;
    }
    return page;
  }

  private index(fresh: readonly ChangeRecord[], byScope: ReadonlyMap<string, ChangeRecord[]>): void {
    for (const [scope, changes] of byScope) {
      const list = this.scoped.get(scope);
      if (list) list.push(...changes);
      else this.scoped.set(scope, [...changes]);
    }
    this.appendedSinceSweep += fresh.length;
    if (this.appendedSinceSweep < CAPACITY) return;
    this.appendedSinceSweep = 0;
    const oldest = this.recent[0]?.id ?? 0;
    for (const [scope, list] of this.scoped) {
      const kept = list.slice(firstAfter(list, oldest - 1));
      if (kept.length === 0) this.scoped.delete(scope);
      else this.scoped.set(scope, kept);
    }
  }

  private refresh(): Promise<void> {
    // One refresh at a time, in order; each picks up whatever arrived before it ran.
    this.refreshing = this.refreshing
      .then(() => this.pull())
      .catch((error: unknown) => {
        this.logger.warn({ err: String(error) }, 'change feed refresh failed');
      });
    return this.refreshing;
  }

  private async pull(): Promise<void> {
    for (;;) {
      const fresh = await this.log.after(this.latest, REFRESH_BATCH, undefined, this.reader);
      if (fresh.length === 0) return;
      this.recent.push(...fresh);
      if (this.recent.length > CAPACITY) this.recent = this.recent.slice(-CAPACITY);
      this.latest = fresh[fresh.length - 1]?.id ?? this.latest;
      const byScope = groupByNodeScope(fresh);
      this.index(fresh, byScope);
      this.wakeFor(fresh, byScope);
      if (fresh.length < REFRESH_BATCH) return;
    }
  }

  private async listen(): Promise<void> {
    const listener = new Client({
      connectionString: this.config.CAREEN_DATABASE_URL,
      application_name: 'exchange-change-feed',
    });
    this.listener = listener;
    listener.on('notification', () => void this.refresh());
    listener.on('error', (error) => {
      // Errors before LISTEN succeeded fail the try itself (see relisten).
      if (this.reader !== listener) return;
      this.reader = undefined;
      this.logger.warn({ err: String(error) }, 'change feed listener lost; reconnecting');
      void listener.end().catch(() => undefined);
      this.relisten();
    });
    try {
      await listener.connect();
      await listener.query(`LISTEN ${outboxSequencedChannel('exchange')}`);
    } catch (error) {
      void listener.end().catch(() => undefined);
      throw error;
    }
    if (this.stopped) await listener.end().catch(() => undefined);
    else this.reader = listener;
  }

  /** Listens again after a pause, and again after each try that fails, until it is back or stopped. */
  private relisten(): void {
    if (this.stopped) return;
    setTimeout(() => {
      if (this.stopped) return;
      this.listen().catch((error: unknown) => {
        this.logger.warn({ err: String(error) }, 'change feed listener could not reconnect; trying again');
        this.relisten();
      });
    }, RELISTEN_MS).unref();
  }
}

/** Index of the first change with an id above `since` in a list in id order. */
function firstAfter(changes: readonly ChangeRecord[], since: number): number {
  let low = 0;
  let high = changes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    // low <= middle < high <= changes.length: the index is always inside the list.
    if (changes[middle]!.id > since) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The changes of each node scope, in id order; changes no node sees are left out. */
function groupByNodeScope(changes: readonly ChangeRecord[]): Map<string, ChangeRecord[]> {
  const byScope = new Map<string, ChangeRecord[]>();
  for (const change of changes) {
    const scope = nodeScopeOf(change);
    if (scope === undefined) continue;
    const list = byScope.get(scope);
    if (list) list.push(change);
    else byScope.set(scope, [change]);
  }
  return byScope;
}
