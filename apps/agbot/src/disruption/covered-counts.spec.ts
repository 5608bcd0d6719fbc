import { CoveredCounts } from './covered-counts';

describe('CoveredCounts', () => {
  const budget = {
    org: 'acme',
    name: 'ams',
    selector: { labels: { site: 'ams' } },
    maxUnavailable: '10%' as const,
  };

  it('answers a count until it is too old, and counts a budget whose selector changed anew', () => {
    let now = 0;
    const counts = new CoveredCounts(5_000, () => now);
    expect(counts.fresh('acme', budget)).toBeUndefined();
    counts.remember('acme', budget, 40);
    now = 4_999;
    expect(counts.fresh('acme', budget)).toBe(40);
    expect(counts.fresh('acme', { ...budget, selector: { labels: { site: 'fra' } } })).toBeUndefined();
    expect(counts.fresh('beta', budget)).toBeUndefined();
    now = 5_000;
    expect(counts.fresh('acme', budget)).toBeUndefined();
  });
});
