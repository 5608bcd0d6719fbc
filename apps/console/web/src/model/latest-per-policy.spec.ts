import { latestPerPolicy } from './latest-per-policy';

describe("a node's current statuses", () => {
  it('keeps the newest status entry of each policy, by policy name, and ignores policy events', () => {
    const entries = [
      { nmp: 'upgrade-b', kind: 'status', event: 'successful', at: '2026-11-26T10:05:00Z' },
      { nmp: 'upgrade-a', kind: 'policy', event: 'paused', at: '2026-11-26T10:04:00Z' },
      { nmp: 'upgrade-b', kind: 'status', event: 'initiated', at: '2026-11-26T10:03:00Z' },
      { nmp: 'upgrade-a', kind: 'status', event: 'ha-waiting', at: '2026-11-26T10:02:00Z' },
    ];
    expect(latestPerPolicy(entries).map((entry) => [entry.nmp, entry.event])).toEqual([
      ['upgrade-a', 'ha-waiting'],
      ['upgrade-b', 'successful'],
    ]);
    expect(latestPerPolicy([])).toEqual([]);
  });
});
