import { rollupOverTime } from './rollup-over-time';

describe("a policy's counts over time", () => {
  it('walks back from the current statuses, undoing each history entry', () => {
    const points = rollupOverTime(
      [
        { node: 'a', status: 'successful' },
        { node: 'b', status: 'initiated' },
      ],
      [
        { node: 'b', kind: 'status', event: 'initiated', at: 't4' },
        { node: 'a', kind: 'status', event: 'successful', at: 't3' },
        { node: null, kind: 'policy', event: 'paused', at: 't2.5' },
        { node: 'b', kind: 'status', event: 'ha-waiting', at: 't2' },
        { node: 'a', kind: 'status', event: 'initiated', at: 't1' },
      ],
      'now',
    );
    expect(points).toEqual([
      { at: 't1', counts: { initiated: 1, unknown: 1 } },
      { at: 't2', counts: { initiated: 1, 'ha-waiting': 1 } },
      { at: 't3', counts: { successful: 1, 'ha-waiting': 1 } },
      { at: 't4', counts: { successful: 1, initiated: 1 } },
      { at: 'now', counts: { successful: 1, initiated: 1 } },
    ]);
  });

  it('is the current counts alone without history', () => {
    expect(rollupOverTime([{ node: 'a', status: 'waiting' }], [], 'now')).toEqual([
      { at: 'now', counts: { waiting: 1 } },
    ]);
  });
});
