import { GroupReleases } from './group-releases';

const FAR = () => Date.now() + 60_000;
const never = new AbortController().signal;

describe('GroupReleases', () => {
  it('wakes a request waiting for its group, and counts it while it waits', async () => {
    const releases = new GroupReleases();
    const watch = releases.watch('acme');
    const woken = watch.released('g1', FAR(), never);
    expect(releases.waiting).toBe(1);
    releases.publish('acme', 'g1');
    expect(await woken).toBe('released');
    expect(releases.waiting).toBe(0);
    watch.close();
  });

  it('does not miss a release that lands between the refusal and the wait', async () => {
    const releases = new GroupReleases();
    const watch = releases.watch('acme');
    releases.publish('acme', 'g1');
    expect(await watch.released('g1', FAR(), never)).toBe('released');
    expect(releases.waiting).toBe(0);
    watch.close();
  });

  it('is not woken by another group, another org or a release before it watched', async () => {
    const releases = new GroupReleases();
    releases.publish('acme', 'g1');
    const watch = releases.watch('acme');
    releases.publish('acme', 'g2');
    releases.publish('other', 'g1');
    const outcome = await Promise.race([
      watch.released('g1', FAR(), never).then(() => 'woken'),
      new Promise((resolve) => setImmediate(() => resolve('still waiting'))),
    ]);
    expect(outcome).toBe('still waiting');
    expect(releases.waiting).toBe(1);
    releases.publish('acme', 'g1');
    expect(releases.waiting).toBe(0);
    watch.close();
  });

  it('says the time is up only once the clock has reached the deadline', async () => {
    const releases = new GroupReleases();
    const watch = releases.watch('acme');
    for (let i = 0; i < 20; i++) {
      const until = Date.now() + 3;
      expect(await watch.released('g1', until, never)).toBe('time-up');
      expect(Date.now()).toBeGreaterThanOrEqual(until);
    }
    watch.close();
  });

  it('ends the wait at its deadline or when the caller hangs up', async () => {
    const releases = new GroupReleases();
    const watch = releases.watch('acme');
    expect(await watch.released('g1', Date.now(), never)).toBe('time-up');
    const hangUp = new AbortController();
    const waiting = watch.released('g1', FAR(), hangUp.signal);
    hangUp.abort();
    expect(await waiting).toBe('hung-up');
    expect(releases.waiting).toBe(0);
    watch.close();
    releases.publish('acme', 'g1');
  });
});
