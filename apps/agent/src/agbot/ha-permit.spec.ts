import { type Clock } from '../core/clock';
import { type AgbotClient, type UpgradeAnswer } from './agbot-client';
import { HaPermit } from './ha-permit';

/** A clock whose sleeps end when the test says so, recording how long each was meant to be. */
class SteppedClock implements Clock {
  readonly sleeps: number[] = [];
  private wake: (() => void)[] = [];

  now(): Date {
    return new Date('2026-03-01T12:00:00.000Z');
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
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

/** The agbot's answers in order, and what it was asked. */
function agbot(answers: UpgradeAnswer[]) {
  const asked: string[] = [];
  const client = {
    requestUpgrade: (nmp: string) => {
      asked.push(`POST ${nmp}`);
      return Promise.resolve(answers.length > 1 ? answers.shift()! : answers[0]!);
    },
    release: () => {
      asked.push('DELETE');
      return Promise.resolve();
    },
  };
  return { client: client as unknown as AgbotClient, asked };
}

const holder = { node: 'peer', managementPolicy: 'up', grantedAt: '', leaseExpiresAt: '' };
const grant = {
  org: 'acme',
  node: 'edge-1',
  haGroup: 'g1',
  managementPolicy: 'up',
  grantedAt: '2026-03-01T12:00:00.000Z',
  leaseExpiresAt: '2026-03-01T12:00:30.000Z',
};

describe('HaPermit', () => {
  it('says once that it waits for a peer, asks again after a jittered wait, and holds the grant', async () => {
    const clock = new SteppedClock();
    const { client, asked } = agbot([
      { granted: false, holder },
      { granted: false, holder },
      { granted: true, grant },
    ]);
    const waited: unknown[] = [];
    const acquiring = new HaPermit(client, clock, () => 0.5, { baseMs: 100, maxMs: 1_000 }).acquire(
      'up',
      { waiting: (peer) => Promise.resolve(void waited.push(peer)), granted: () => undefined },
      new AbortController().signal,
    );
    await clock.tick();
    await clock.tick();
    await clock.tick();
    const permit = await acquiring;

    expect(waited).toEqual([holder]);
    expect(asked).toEqual(['POST up', 'POST up', 'POST up']);
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
    expect(asked).toEqual(['POST up', 'POST up', 'POST up', 'DELETE']);
  });
});
