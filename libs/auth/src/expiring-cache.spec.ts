import { ExpiringCache } from './expiring-cache';

describe('ExpiringCache', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000;
  });

  it('returns a value until its time to live has passed', () => {
    const cache = new ExpiringCache<string>(10, clock);
    cache.set('k', 'v', 500);
    now += 499;
    expect(cache.get('k')).toBe('v');
    now += 1;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stores nothing for a time to live of zero or less', () => {
    const cache = new ExpiringCache<string>(10, clock);
    cache.set('k', 'v', 0);
    cache.set('j', 'v', -5);
    expect(cache.size).toBe(0);
  });

  it('forgets the oldest entry when full', () => {
    const cache = new ExpiringCache<number>(3, clock);
    for (const [index, key] of ['a', 'b', 'c', 'd'].entries()) cache.set(key, index, 1_000);
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([1, 2, 3]);
  });

  it('treats a rewritten key as the newest', () => {
    const cache = new ExpiringCache<number>(2, clock);
    cache.set('a', 1, 1_000);
    cache.set('b', 2, 1_000);
    cache.set('a', 3, 1_000);
    cache.set('c', 4, 1_000);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(3);
  });
});
