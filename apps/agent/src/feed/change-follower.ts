/**
 * Follows the org's change feed for one agent: keeps the cursor and the org's management
 * policies in the agent's memory, and reads the state afresh when it has no cursor (a new
 * agent), when the feed's retention moved past it (410), or when a change breaks the wire
 * contract — a change the agent cannot read is never half applied, and reading afresh from the
 * head means nothing after it is missed either.
 */
import { type JsonLogger } from '@careen/telemetry';
import { type ExchangeClient } from '../exchange/exchange-client';
import { type FeedChange } from '../exchange/exchange.types';
import { ApiError } from '@careen/api-client';
import { type AgentMemory } from '../state/agent-memory';
import { feedChangeProblem } from './feed-change';
import { applyChanges, type FeedNews } from './feed-news';

/** The part of the exchange the feed is read from. */
export type FeedSource = Pick<ExchangeClient, 'changes' | 'changeHead' | 'managementPolicies'>;

export interface FeedPage {
  /** The changes read and applied (an unreadable one and those after it are left out). */
  changes: readonly FeedChange[];
  news: FeedNews;
}

export class ChangeFollower {
  constructor(
    private readonly source: FeedSource,
    private readonly memory: AgentMemory,
    private readonly logger: JsonLogger,
  ) {}

  /** Whether the feed must be read afresh before the next poll. */
  get lost(): boolean {
    return this.memory.state.changeCursor === undefined;
  }

  /**
   * Starts following the feed without its history: the head first, then the state the feed
   * would have told, so a change made in between is read again rather than missed. Reading
   * history instead would cost the exchange a scan of the whole log for every agent that joins.
   */
  async readAfresh(): Promise<void> {
    const { state } = this.memory;
    const head = await this.source.changeHead();
    const policies = await this.source.managementPolicies();
    state.policies = Object.fromEntries(policies.map((policy) => [policy.name, policy]));
    state.changeCursor = head;
    await this.memory.persist();
  }

  /**
   * One poll after the cursor: applies what it reads and moves the cursor past it. Answers an
   * empty page, with the cursor dropped, when the feed has moved past the cursor or a change
   * breaks its contract; the caller then reads afresh.
   */
  async poll(waitSeconds: number, signal: AbortSignal): Promise<FeedPage> {
    const { state } = this.memory;
    const cursor = state.changeCursor;
    if (cursor === undefined) throw new Error('the feed must be read afresh first');
    let page;
    try {
      page = await this.source.changes(cursor, waitSeconds, signal);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 410)) throw error;
      this.logger.warn({ cursor }, 'change feed moved past our cursor; reading afresh');
      return this.lose([]);
    }
    for (const [index, change] of page.changes.entries()) {
      const problem = feedChangeProblem(change);
      if (problem === undefined) continue;
      this.logger.warn(
        { change: change.id, resource: change.resource, problem },
        'a change breaks its contract; reading afresh',
      );
      return this.lose(page.changes.slice(0, index));
    }
    const news = applyChanges(page.changes, (state.policies ??= {}));
    state.changeCursor = page.lastId;
    if (page.lastId !== cursor) await this.memory.persist();
    return { changes: page.changes, news };
  }

  /** Applies what could be read before the loss; the next poll waits for a fresh read. */
  private async lose(readable: readonly FeedChange[]): Promise<FeedPage> {
    const news = applyChanges(readable, (this.memory.state.policies ??= {}));
    delete this.memory.state.changeCursor;
    await this.memory.persist();
    return { changes: readable, news };
  }
}
