import { Backoff, jittered } from './backoff';

describe('Backoff', () => {
  it('widens its window exponentially up to the ceiling and starts over after a reset', () => {
    const highest = new Backoff(() => 0.999999, 100, 1_000);
    const waits = Array.from({ length: 6 }, () => Math.round(highest.next()));
    expect(waits).toEqual([100, 200, 400, 800, 1000, 1000]);
    highest.reset();
    expect(Math.round(highest.next())).toBe(100);
  });

  it('never waits less than its base, whatever the random source says', () => {
    const lowest = new Backoff(() => 0, 100, 1_000);
    expect([lowest.next(), lowest.next(), lowest.next()]).toEqual([100, 100, 100]);
  });

  it('spreads a period around its value', () => {
    expect(jittered(1000, () => 0)).toBe(800);
    expect(jittered(1000, () => 0.5)).toBe(1000);
  });
});
