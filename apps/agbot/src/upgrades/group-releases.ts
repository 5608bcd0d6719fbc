/**
 * Tells requests waiting for an HA group's slot that a slot of that group was released, by
 * any replica (every release is published on CAREEN_AGBOT and every replica listens). A
 * request starts watching its org before it first asks, so a release that lands between a
 * refusal and the wait is not missed.
 */

/** Why a wait ended: a slot of the group was released, the time was up, or the caller hung up. */
export type WaitEnd = 'released' | 'time-up' | 'hung-up';

/** A wait for a release in any group of the org. */
export const ANYWHERE = Symbol('anywhere');

/** A request's view of the releases in one org since it started watching. */
export interface ReleaseWatch {
  /**
   * Resolves once a slot of `haGroup` has been released since the watch began (at once when
   * one already was, and the record is then consumed), at `untilMs` (epoch ms) or on abort.
   * `ANYWHERE` waits for a release in any group of the org (a fleet budget spans groups).
   */
  released(haGroup: string | null | typeof ANYWHERE, untilMs: number, signal: AbortSignal): Promise<WaitEnd>;
  close(): void;
}

interface Watcher {
  /** Groups released since the watch began, or since its last wait, while it was not waiting. */
  seen: Set<string | null>;
  /** The group waited for, once the request knows it: releases elsewhere are then ignored. */
  group?: string | null | typeof ANYWHERE;
  wake?: (end: WaitEnd) => void;
}

export class GroupReleases {
  private readonly watchers = new Map<string, Set<Watcher>>();

  /** Requests waiting for a release now, across all orgs. */
  get waiting(): number {
    let total = 0;
    for (const watchers of this.watchers.values()) {
      for (const watcher of watchers) if (watcher.wake) total += 1;
    }
    return total;
  }

  publish(org: string, haGroup: string | null): void {
    for (const watcher of this.watchers.get(org) ?? []) {
      if (watcher.group !== undefined && watcher.group !== ANYWHERE && watcher.group !== haGroup) continue;
      if (watcher.wake) watcher.wake('released');
      else watcher.seen.add(haGroup);
    }
  }

  watch(org: string): ReleaseWatch {
    const watcher: Watcher = { seen: new Set() };
    const watchers = this.watchers.get(org) ?? new Set<Watcher>();
    watchers.add(watcher);
    this.watchers.set(org, watchers);
    return {
      released: (haGroup, untilMs, signal) => this.waitFor(watcher, haGroup, untilMs, signal),
      close: () => {
        watchers.delete(watcher);
        if (watchers.size === 0 && this.watchers.get(org) === watchers) this.watchers.delete(org);
      },
    };
  }

  private waitFor(
    watcher: Watcher,
    haGroup: string | null | typeof ANYWHERE,
    untilMs: number,
    signal: AbortSignal,
  ): Promise<WaitEnd> {
    watcher.group = haGroup;
    const releasedAlready = haGroup === ANYWHERE ? watcher.seen.size > 0 : watcher.seen.has(haGroup);
    watcher.seen.clear();
    if (signal.aborted) return Promise.resolve('hung-up');
    if (releasedAlready) return Promise.resolve('released');
    return new Promise((resolve) => {
      const done = (end: WaitEnd) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', hangUp);
        watcher.wake = undefined;
        resolve(end);
      };
      const hangUp = () => done('hung-up');
      // A timer may fire a millisecond before the clock reads `untilMs`: the time is up only then.
      const timeUp = () => {
        const left = untilMs - Date.now();
        if (left > 0) timer = setTimeout(timeUp, left);
        else done('time-up');
      };
      let timer = setTimeout(timeUp, Math.max(0, untilMs - Date.now()));
      signal.addEventListener('abort', hangUp);
      watcher.wake = done;
    });
  }
}
