import { seededRandom } from '@careen/testing';
import { type Clock } from './clock';
import { HEARTBEAT_SPREAD, type NodeStatusTarget, StatusHeartbeat } from './status-heartbeat';

/** A clock that stands still until the test moves it; a sleep ends once its time has come. */
class ManualClock implements Clock {
  private ms = Date.parse('2026-03-01T12:00:00.000Z');
  readonly sleeps: number[] = [];
  private sleepers: { until: number; wake: () => void }[] = [];

  now(): Date {
    return new Date(this.ms);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((resolve) => {
      this.sleepers.push({ until: this.ms + ms, wake: resolve });
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Moves time on by `ms` and lets every sleeper whose time has come run on. */
  async advance(ms: number): Promise<void> {
    this.ms += ms;
    const due = this.sleepers.filter((sleeper) => sleeper.until <= this.ms);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.until > this.ms);
    for (const sleeper of due) sleeper.wake();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Records the forced reports; a report of a change is `changed()`. */
function exchange(clock: ManualClock) {
  const forced: number[] = [];
  const target: { -readonly [K in keyof NodeStatusTarget]: NodeStatusTarget[K] } & { changed(): void } = {
    lastNodeReportAt: undefined,
    node: (force) => {
      if (force) forced.push(clock.now().getTime());
      target.lastNodeReportAt = clock.now().getTime();
      return Promise.resolve();
    },
    changed: () => (target.lastNodeReportAt = clock.now().getTime()),
  };
  return { target, forced };
}

const INTERVAL = 60_000;

describe('StatusHeartbeat', () => {
  it('reports an unchanged status again before the interval has passed since the last report', async () => {
    const clock = new ManualClock();
    const { target, forced } = exchange(clock);
    const stop = new AbortController();
    const start = clock.now().getTime();
    const running = new StatusHeartbeat(target, clock, () => 0.5, INTERVAL).run(stop.signal);

    await clock.advance(INTERVAL * (1 - HEARTBEAT_SPREAD / 2) - 1);
    expect(forced).toEqual([]);
    await clock.advance(1);
    expect(forced).toEqual([start + INTERVAL * (1 - HEARTBEAT_SPREAD / 2)]);
    await clock.advance(INTERVAL);
    expect(forced).toHaveLength(2);

    stop.abort();
    await running;
  });

  it('counts from the last report of a change, so a busy agent sends no extra heartbeats', async () => {
    const clock = new ManualClock();
    const { target, forced } = exchange(clock);
    const stop = new AbortController();
    const running = new StatusHeartbeat(target, clock, () => 0, INTERVAL).run(stop.signal);

    for (let i = 0; i < 5; i++) {
      await clock.advance(INTERVAL / 2);
      target.changed();
    }
    expect(forced).toEqual([]);
    const lastChange = clock.now().getTime();
    await clock.advance(INTERVAL);
    expect(forced).toEqual([lastChange + INTERVAL]);

    stop.abort();
    await running;
  });

  it('spreads agents over the last fifth of the interval, never beyond it', async () => {
    const periods: number[] = [];
    for (const draw of [0, 0.25, 0.999]) {
      const clock = new ManualClock();
      const { target } = exchange(clock);
      const stop = new AbortController();
      const running = new StatusHeartbeat(target, clock, () => draw, INTERVAL).run(stop.signal);
      periods.push(clock.sleeps[0]!);
      stop.abort();
      await running;
    }
    expect(periods).toEqual([60_000, 57_000, 48_012]);
  });

  it('ends when stopped, also while it waits', async () => {
    const clock = new ManualClock();
    const { target, forced } = exchange(clock);
    const stop = new AbortController();
    const running = new StatusHeartbeat(target, clock, seededRandom(7), INTERVAL).run(stop.signal);

    stop.abort();
    await running;
    await clock.advance(INTERVAL * 2);
    expect(forced).toEqual([]);
  });
});
