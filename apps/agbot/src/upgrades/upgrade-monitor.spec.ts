import { MANAGEMENT_STATUSES } from '@careen/contracts';
import { statusEffect } from './upgrade-monitor';

describe('statusEffect', () => {
  const effects = () =>
    Object.fromEntries(MANAGEMENT_STATUSES.map((status) => [status, statusEffect(status)]));

  it('keeps a failed member holding its group until it is healthy again', () => {
    expect(effects()).toMatchObject({
      failed: 'halt',
      'rolling-back': 'halt',
      'rollback-failed': 'halt',
      'rolled-back': 'heal',
      successful: 'heal',
      reset: 'reset',
    });
  });

  it('ends a grant on the end states that never installed, and renews on the steps in between', () => {
    const byEffect = (effect: string) =>
      MANAGEMENT_STATUSES.filter((status) => statusEffect(status) === effect);
    expect(byEffect('release')).toEqual([
      'no-action-required',
      'conflict',
      'download-failed',
      'precheck-failed',
    ]);
    expect(byEffect('renew')).toEqual([
      'waiting',
      'paused',
      'downloading',
      'downloaded',
      'ha-waiting',
      'initiated',
    ]);
  });
});
