/**
 * The exchange's change feed of one org, followed by long polls while the console is open:
 * every committed change to a node, HA group, policy or status is passed to the listeners a
 * moment after it is made, which is what keeps the views live. After a failed poll it tries
 * again with a growing pause, and says meanwhile that it is reconnecting.
 */
import { read, type Clients } from '../api/clients';
import { ApiProblem } from '../api/problem';

export interface Change {
  id: number;
  resource: string;
  resourceId: string;
  operation: string;
}

export type FeedState = 'connecting' | 'live' | 'reconnecting';

type ChangeListener = (changes: Change[]) => void;
type StateListener = (state: FeedState) => void;

/** How long one poll waits for a change, in seconds. */
const WAIT_SECONDS = 25;
const MAX_PAUSE_MS = 15_000;

export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private readonly stateListeners = new Set<StateListener>();
  private following?: AbortController;
  private state: FeedState = 'connecting';

  constructor(
    private readonly clients: Clients,
    private readonly org: string,
  ) {}

  /** Follows the feed until stopped; started again after a stop, it reads from the head again. */
  start(): void {
    this.following?.abort();
    this.following = new AbortController();
    void this.follow(this.following.signal);
  }

  stop(): void {
    this.following?.abort();
  }

  onChanges(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onState(listener: StateListener): () => void {
    this.stateListeners.add(listener);
    listener(this.state);
    return () => this.stateListeners.delete(listener);
  }

  private async follow(signal: AbortSignal): Promise<void> {
    let since: number | undefined;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (since === undefined) {
          const head = await read(
            this.clients.exchange.GET('/v1/orgs/{org}/changes/head', {
              params: { path: { org: this.org } },
              signal,
            }),
            'exchange',
          );
          since = head.lastId;
          // Whatever happened while not following is read again by the views.
          if (failures > 0) this.emit([]);
        }
        this.setState('live');
        failures = 0;
        const answer = await read(
          this.clients.exchange.GET('/v1/orgs/{org}/changes', {
            params: { path: { org: this.org }, query: { since, wait: WAIT_SECONDS, limit: 1000 } },
            signal,
          }),
          'exchange',
        );
        since = answer.lastId;
        if (answer.changes.length > 0) this.emit(answer.changes);
      } catch (error) {
        if (signal.aborted) return;
        // A feed pruned past `since` (410) is read again from its head.
        if (error instanceof ApiProblem && error.status === 410) since = undefined;
        if (error instanceof ApiProblem && error.status === 401) return;
        failures += 1;
        this.setState('reconnecting');
        await pause(Math.min(MAX_PAUSE_MS, 500 * 2 ** failures), signal);
      }
    }
  }

  private emit(changes: Change[]): void {
    for (const listener of this.listeners) listener(changes);
  }

  private setState(state: FeedState): void {
    if (state === this.state) return;
    this.state = state;
    for (const listener of this.stateListeners) listener(state);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
