import { scrapeRead } from './scrape-read';

describe('scrapeRead', () => {
  it('reads once for the gauges of one scrape, and again once the answer is old', async () => {
    let reads = 0;
    const shared = scrapeRead(async () => ++reads, 60_000);
    expect(await Promise.all([shared(), shared(), shared()])).toEqual([1, 1, 1]);
    const stale = scrapeRead(async () => ++reads, -1);
    expect([await stale(), await stale()]).toEqual([2, 3]);
  });
});
