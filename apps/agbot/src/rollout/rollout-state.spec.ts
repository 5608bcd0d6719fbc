import { EMPTY_ROLLOUT_STATE, readRolloutState } from './rollout-state';

describe('readRolloutState', () => {
  it('reads back what the planner wrote', () => {
    const state = {
      groups: {
        g: { inFlight: { node: 'a', version: '2.0.0', since: '2026-11-20T12:00:00.000Z' }, halted: null },
        h: {
          inFlight: null,
          halted: { node: 'b', version: '2.0.0', reason: 'did not come up', at: '2026-11-20T12:01:00.000Z' },
        },
      },
      ungrouped: { c: { node: 'c', version: '2.0.0', since: '2026-11-20T12:00:00.000Z', overdue: true } },
    };
    expect(readRolloutState(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });

  it('drops what it cannot read instead of failing', () => {
    expect(readRolloutState(null)).toEqual(EMPTY_ROLLOUT_STATE);
    expect(readRolloutState('nonsense')).toEqual(EMPTY_ROLLOUT_STATE);
    expect(
      readRolloutState({
        groups: {
          g: { inFlight: { node: 'a', version: '2.0.0', since: 'yesterday' } },
          h: 3,
          i: { halted: {} },
        },
        ungrouped: { x: { node: 'x' }, y: { node: 'y', version: '1.0.0', since: '2026-11-20T12:00:00Z' } },
      }),
    ).toEqual({
      groups: {},
      ungrouped: { y: { node: 'y', version: '1.0.0', since: '2026-11-20T12:00:00Z' } },
    });
  });
});
