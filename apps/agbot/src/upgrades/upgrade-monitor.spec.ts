import { MANAGEMENT_STATUSES } from '@careen/contracts';
import { RELEASING_STATUSES } from './upgrade-monitor';

describe('RELEASING_STATUSES', () => {
  it('ends a grant on every end state and on failed, and renews on the steps in between', () => {
    expect(MANAGEMENT_STATUSES.filter((status) => !RELEASING_STATUSES.has(status))).toEqual([
      'waiting',
      'downloading',
      'downloaded',
      'ha-waiting',
      'initiated',
      'rolling-back',
      'reset',
    ]);
  });
});
