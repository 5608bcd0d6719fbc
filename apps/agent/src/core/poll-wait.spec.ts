import { seededRandom } from '@careen/testing';
import { POLL_SPREAD, pollWait } from './poll-wait';

describe('pollWait', () => {
  it('draws whole seconds in the last fifth of the setting, never beyond it', () => {
    expect([0, 0.5, 0.999].map((draw) => pollWait(30, () => draw))).toEqual([30, 27, 25]);
    const random = seededRandom(11);
    const waits = Array.from({ length: 1_000 }, () => pollWait(30, random));
    expect(Math.max(...waits)).toBe(30);
    expect(Math.min(...waits)).toBe(30 - Math.ceil(POLL_SPREAD * 30) + 1);
    expect(waits.every(Number.isInteger)).toBe(true);
    expect(new Set(waits).size).toBe(6);
  });

  it('waits at least a second, however short the setting', () => {
    expect(pollWait(1, () => 0.999)).toBe(1);
    expect(pollWait(2, () => 0.999)).toBe(2);
  });
});
