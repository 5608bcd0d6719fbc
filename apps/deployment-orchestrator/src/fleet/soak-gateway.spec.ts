import { type PolicyStatus } from './fleet-gateway';
import { type SoakState, withSoaks } from './soak-gateway';

const status = (node: string, reported: string): PolicyStatus => ({
  node,
  status: reported,
  version: '2.0.0',
  error: null,
});

describe('withSoaks', () => {
  it('holds a successful node while it soaks or holds its slot, and fails it when an alert broke the soak', () => {
    const soaks = new Map<string, SoakState>([
      ['a', { node: 'a', state: 'soaking', gate: 'health', until: '2026-12-06T10:05:00.000Z' }],
      ['b', { node: 'b', state: 'held' }],
      ['c', { node: 'c', state: 'soak-failed', error: 'alert "NodeDown" firing for node=c during the soak' }],
      ['d', { node: 'd', state: 'halted', error: 'install failed' }],
      ['e', { node: 'e', state: 'soaking', gate: 'health', until: '2026-12-06T10:05:00.000Z' }],
    ]);
    const settled = withSoaks(
      [
        status('a', 'successful'),
        status('b', 'successful'),
        status('c', 'successful'),
        status('d', 'successful'),
        status('e', 'initiated'),
        status('f', 'successful'),
      ],
      soaks,
    );
    expect(settled.map((each) => [each.node, each.status, each.error])).toEqual([
      ['a', 'soaking', 'gate "health" soaks the step until 2026-12-06T10:05:00.000Z'],
      ['b', 'soaking', null],
      ['c', 'soak-failed', 'alert "NodeDown" firing for node=c during the soak'],
      ['d', 'halted', null],
      // Only a node that says it is done is held: the others are as they reported.
      ['e', 'initiated', null],
      ['f', 'successful', null],
    ]);
  });
});
