/**
 * The long-poll change feed: answers as soon as a change the caller may see exists after
 * `since`, or after `wait` seconds with none. Ids follow commit order, so a caller that has
 * seen N never later meets an id ≤ N. A node's poll is also its heartbeat.
 */
import { type Principal } from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { ChangeLogRepository } from './change-log.repository';
import { type ChangeRecord } from './change-record';
import { ChangeTail } from './change-tail';
import { NodeHeartbeat } from './node-heartbeat';
import { isVisibleTo, nodeScopes } from './change-visibility';
import { sinceTooOld } from './changes.errors';
import { type ChangeFeedResponse } from './dto/change-feed.response';

export interface ChangeFeedQuery {
  since: number;
  wait: number;
  limit: number;
}

@Injectable()
export class ChangeFeedService {
  constructor(
    private readonly tail: ChangeTail,
    private readonly log: ChangeLogRepository,
    private readonly heartbeat: NodeHeartbeat,
  ) {}

  /** The newest change id; every change up to it is committed and in the log. */
  head(): number {
    return this.tail.latestId();
  }

  async read(
    principal: Principal,
    org: string,
    query: ChangeFeedQuery,
    signal: AbortSignal,
  ): Promise<ChangeFeedResponse> {
    // Stored within a second, with the beats of other polls; the poll does not wait for it.
    if (principal.kind === 'node') void this.heartbeat.beat(principal.org, principal.node);
    // A poller whose changes are all in memory (the usual case) cannot have missed pruned ones.
    if (!this.tail.covers(query.since)) {
      const resyncFrom = await this.log.prunedAfter(query.since);
      if (resyncFrom !== undefined) throw sinceTooOld(query.since, resyncFrom);
    }
    const deadline = Date.now() + query.wait * 1000;
    const concerns = (change: ChangeRecord) => isVisibleTo(principal, org, change);
    // A node's own reports are news to everyone but itself: they do not end its wait.
    const wakes = (change: ChangeRecord) =>
      concerns(change) && !(principal.kind === 'node' && change.byNode === true);
    const scopes = principal.kind === 'node' ? nodeScopes(org, principal.node) : [];
    let cursor = query.since;
    for (;;) {
      const head = this.tail.latestId();
      const page = await this.visiblePage(principal, org, cursor, query.limit, head, concerns);
      if (page.changes.length > 0) return page;
      // Nothing up to `head` concerns the caller: wait for what comes next.
      cursor = Math.max(cursor, page.lastId);
      const remaining = deadline - Date.now();
      // A replica that stops answers now: its poller asks again, of a replica that runs.
      if (remaining <= 0 || signal.aborted || this.tail.closed)
        return { changes: [], lastId: Math.max(cursor, query.since) };
      await this.tail.waitForChanges(cursor, wakes, remaining, signal, scopes);
    }
  }

  /**
   * The first changes after `cursor` that the caller may see, with the id to go on from; none
   * (and `head`, or further) when nothing up to `head` concerns it.
   */
  private async visiblePage(
    principal: Principal,
    org: string,
    cursor: number,
    limit: number,
    head: number,
    concerns: (change: ChangeRecord) => boolean,
  ): Promise<ChangeFeedResponse> {
    if (principal.kind === 'node') {
      // From memory when it reaches back to the cursor, else from the log, filtered there so a
      // node far behind does not page through its fleet's reports. A short page from the log
      // may hold changes past `head`.
      const changes =
        this.tail.visibleToNode(cursor, limit, org, principal.node) ??
        (await this.log.visibleToNode(cursor, limit, org, principal.node));
      const newest = changes[changes.length - 1]?.id ?? cursor;
      return { changes, lastId: changes.length === limit ? newest : Math.max(head, newest) };
    }
    for (;;) {
      const page = await this.tail.after(cursor, limit, org);
      cursor = page[page.length - 1]?.id ?? cursor;
      const changes = page.filter(concerns);
      if (changes.length > 0) return { changes, lastId: cursor };
      // A short page held every change up to `head` that could concern the caller.
      if (page.length < limit) return { changes: [], lastId: Math.max(cursor, head) };
    }
  }
}
