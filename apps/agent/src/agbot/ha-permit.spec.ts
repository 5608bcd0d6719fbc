import { type Clock } from '../core/clock';
import { type AgbotClient, type UpgradeAnswer, type UpgradeGrant } from './agbot-client';
import { PolicyStopped } from '../enactment/policy-stopped';
import { ApiError } from '@careen/api-client';
import { HaPermit } from './ha-permit';

/** A clock whose sleeps end when the test says so, recording how long each was meant to be. */
class SteppedClock implements Clock {
  readonly sleeps: number[] = [];
  private wake: (() => void)[] = [];
  private at = Date.parse('2026-03-01T12:00:00.000Z');

  now(): Date {
    return new Date(this.at);
  }

  advance(ms: number): void {
    this.at += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake.push(resolve);
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Ends every sleep under way and lets the sleepers run on. */
  async tick(): Promise<void> {
    for (const resolve of this.wake.splice(0)) resolve();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A clock whose sleeps pass at once, moving its time on by as much. */
class HurriedClock implements Clock {
  readonly sleeps: number[] = [];
  private at = Date.parse('2026-03-01T12:00:00.000Z');

  now(): Date {
    return new Date(this.at);
  }

  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.at += ms;
    return Promise.resolve();
  }
}

/** An agbot whose releases fail as listed (then succeed), and how often it was asked. */
function failingReleases(failures: Error[]) {
  let asked = 0;
  const client = {
    release: () => {
      asked++;
      const failure = failures.shift();
      return failure ? Promise.reject(failure) : Promise.resolve();
    },
  };
  return { client: client as unknown as AgbotClient, asked: () => asked };
}

const unavailable = () => new ApiError(503, undefined, 'http://agbot/v1/orgs/acme/nodes/n1/upgrade');

/**
 * The agbot's answers in order, and what it was asked. `holds` makes it keep a waiting
 * request as long as asked, on the test's clock, before it refuses.
 */
function agbot(answers: UpgradeAnswer[], holds?: SteppedClock) {
  const asked: string[] = [];
  const client = {
    requestUpgrade: (nmp: string, wait = 0) => {
      asked.push(wait > 0 ? `POST ${nmp} wait=${wait}` : `POST ${nmp}`);
      const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
      if (holds && !answer.granted) holds.advance(wait * 1000);
      return Promise.resolve(answer);
    },
    renewUpgrade: (nmp: string) => {
      asked.push(`RENEW ${nmp}`);
      return Promise.resolve(true);
    },
    release: () => {
      asked.push('DELETE');
      return Promise.resolve();
    },
  };
  return { client: client as unknown as AgbotClient, asked };
}

const holder = { node: 'peer', managementPolicy: 'up', grantedAt: '', leaseExpiresAt: '' };
const grant: UpgradeGrant = {
  org: 'acme',
  node: 'edge-1',
  haGroup: 'g1',
  holder: 'agent-upgrade',
  managementPolicy: 'up',
  grantedAt: '2026-03-01T12:00:00.000Z',
  leaseExpiresAt: '2026-03-01T12:00:30.000Z',
};

describe('HaPermit', () => {
  it('says at once that it waits for a peer, then waits at the agbot and asks again as soon as it answers', async () => {
    const clock = new SteppedClock();
    const { client, asked } = agbot(
      [
        { granted: false, holder },
        { granted: false, holder },
        { granted: false, holder },
        { granted: true, grant },
      ],
      clock,
    );
    const waited: unknown[] = [];
    let sleptBeforeGrant: number[] = [];
    const permit = await new HaPermit(client, clock, () => 0.5, {
      retry: { baseMs: 100, maxMs: 1_000 },
      waitSeconds: 20,
    }).acquire(
      'up',
      {
        waiting: (peer) => Promise.resolve(void waited.push(peer)),
        granted: () => void (sleptBeforeGrant = [...clock.sleeps]),
      },
      new AbortController().signal,
    );

    expect(waited).toEqual([holder]);
    expect(asked).toEqual(['POST up', 'POST up wait=20', 'POST up wait=20', 'POST up wait=20']);
    expect(sleptBeforeGrant).toEqual([]);
    await permit.release();
  });

  it('hangs up a wait at the agbot when the agent stops', async () => {
    const asked: number[] = [];
    const client = {
      requestUpgrade: (_nmp: string, wait: number, signal?: AbortSignal) => {
        asked.push(wait);
        if (wait === 0) return Promise.resolve({ granted: false, holder });
        return new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('hung up')), { once: true }),
        );
      },
    } as unknown as AgbotClient;
    const stop = new AbortController();
    const acquiring = new HaPermit(client, new SteppedClock(), () => 0).acquire(
      'up',
      { waiting: () => Promise.resolve(), granted: () => undefined },
      stop.signal,
    );
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort();

    await expect(acquiring).rejects.toThrow('stopped while waiting for the HA group');
    expect(asked).toEqual([0, 30]);
  });

  it('backs off with jitter when the agbot refuses a wait at once, and holds the grant', async () => {
    const clock = new SteppedClock();
    const { client, asked } = agbot([
      { granted: false, holder },
      { granted: false, holder },
      { granted: false, holder },
      { granted: true, grant },
    ]);
    const waited: unknown[] = [];
    const acquiring = new HaPermit(client, clock, () => 0.5, {
      retry: { baseMs: 100, maxMs: 1_000 },
    }).acquire(
      'up',
      { waiting: (peer) => Promise.resolve(void waited.push(peer)), granted: () => undefined },
      new AbortController().signal,
    );
    await clock.tick();
    await clock.tick();
    await clock.tick();
    const permit = await acquiring;

    expect(waited).toEqual([holder]);
    expect(asked).toEqual(['POST up', 'POST up wait=30', 'POST up wait=30', 'POST up wait=30']);
    expect(clock.sleeps.slice(0, 2)).toEqual([100, 150]);
    await permit.release();
  });

  it('renews its lease every third of it while holding, and gives it back when released', async () => {
    const clock = new SteppedClock();
    const { client, asked } = agbot([{ granted: true, grant }]);
    const permit = await new HaPermit(client, clock, () => 0).acquire(
      'up',
      { waiting: () => Promise.resolve(), granted: () => undefined },
      new AbortController().signal,
    );
    await clock.tick();
    await clock.tick();
    await permit.release();

    expect(clock.sleeps.every((ms) => ms === 10_000)).toBe(true);
    expect(asked).toEqual(['POST up', 'RENEW up', 'RENEW up', 'DELETE']);
  });

  it('stops renewing but keeps the slot when the node is left unhealthy', async () => {
    const clock = new SteppedClock();
    const { client, asked } = agbot([{ granted: true, grant }]);
    const permit = await new HaPermit(client, clock, () => 0).acquire(
      'up',
      { waiting: () => Promise.resolve(), granted: () => undefined },
      new AbortController().signal,
    );
    await clock.tick();
    await permit.keep();
    await clock.tick();

    expect(asked).toEqual(['POST up', 'RENEW up']);
  });

  it('gives up waiting, without a grant, once the agbot says the policy is stopped', async () => {
    const { client, asked } = agbot([
      { granted: false, holder },
      { granted: false, policyStopped: true },
    ]);
    const acquiring = new HaPermit(client, new SteppedClock(), () => 0).acquire(
      'up',
      { waiting: () => Promise.resolve(), granted: () => undefined },
      new AbortController().signal,
    );

    await expect(acquiring).rejects.toBeInstanceOf(PolicyStopped);
    expect(asked).toEqual(['POST up', 'POST up wait=30']);
  });

  describe('giving the slot back', () => {
    it('asks again while the agbot cannot take it, until it does', async () => {
      const clock = new HurriedClock();
      const { client, asked } = failingReleases([
        new TypeError('fetch failed'),
        unavailable(),
        unavailable(),
      ]);
      await new HaPermit(client, clock, () => 0.5, { retry: { baseMs: 100, maxMs: 1_000 } }).giveBack();

      expect(asked()).toBe(4);
      expect(clock.sleeps).toHaveLength(3);
    });

    it('takes a refusal as final', async () => {
      const { client, asked } = failingReleases([
        new ApiError(403, undefined, 'http://agbot/v1/orgs/acme/nodes/n1/upgrade'),
      ]);
      await new HaPermit(client, new HurriedClock(), () => 0.5).giveBack();

      expect(asked()).toBe(1);
    });

    it('stops asking after the time it was given', async () => {
      const clock = new HurriedClock();
      const { client, asked } = failingReleases(Array.from({ length: 100 }, unavailable));
      await new HaPermit(client, clock, () => 0.5, { retry: { baseMs: 1_000, maxMs: 10_000 } }).giveBack(
        30_000,
      );

      expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(30_000);
      expect(asked()).toBeGreaterThan(3);
      expect(asked()).toBeLessThan(100);
    });

    it('stops asking when the agent stops', async () => {
      const stopping = new AbortController();
      const clock = new HurriedClock();
      const client = {
        release: () => {
          stopping.abort();
          return Promise.reject(unavailable());
        },
      } as unknown as AgbotClient;
      await new HaPermit(client, clock, () => 0.5, { stopping: stopping.signal }).giveBack();

      expect(clock.sleeps).toEqual([]);
    });

    it('is what releasing a held permit does', async () => {
      const clock = new SteppedClock();
      const { client, asked } = agbot([{ granted: true, grant }]);
      let releases = 0;
      client.release = () => (++releases === 1 ? Promise.reject(unavailable()) : Promise.resolve());
      const permit = await new HaPermit(client, clock, () => 0, {
        retry: { baseMs: 100, maxMs: 1_000 },
      }).acquire(
        'up',
        { waiting: () => Promise.resolve(), granted: () => undefined },
        new AbortController().signal,
      );
      const releasing = permit.release();
      // The retry waits on the clock.
      while (releases < 2) await clock.tick();
      await releasing;

      expect([asked, releases]).toEqual([['POST up'], 2]);
    });
  });
});
