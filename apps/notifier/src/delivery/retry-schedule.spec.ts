import { nextAttempt } from './retry-schedule';

const NOW = new Date('2026-12-01T02:00:00.000Z');
const FAR = new Date('2026-12-02T02:00:00.000Z');
const SETTINGS = { baseMs: 1_000, maxMs: 60_000 };
const delayOf = (attempts: number, random: number) =>
  nextAttempt(attempts, NOW, FAR, SETTINGS, () => random)!.getTime() - NOW.getTime();

describe('the retry schedule', () => {
  it('doubles the ceiling per attempt up to the longest, jittered between half the base and it', () => {
    expect([1, 2, 3, 4].map((attempts) => delayOf(attempts, 1))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(delayOf(20, 1)).toBe(60_000);
    expect(delayOf(3, 0)).toBe(500);
    expect(delayOf(3, 0.5)).toBe(2_250);
  });

  it('gives up once the next attempt would come after the deadline', () => {
    expect(nextAttempt(3, NOW, new Date(NOW.getTime() + 3_000), SETTINGS, () => 1)).toBeUndefined();
    expect(nextAttempt(3, NOW, new Date(NOW.getTime() + 4_000), SETTINGS, () => 1)).toEqual(
      new Date(NOW.getTime() + 4_000),
    );
  });
});
