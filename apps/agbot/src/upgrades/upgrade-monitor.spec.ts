import { MANAGEMENT_STATUSES } from '@careen/contracts';
import { type UpgradeGrant } from './upgrade-grant';
import { heldOutsideGroup, statusEffect } from './upgrade-monitor';

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

describe('heldOutsideGroup', () => {
  const grant = (node: string, haGroup: string | null): UpgradeGrant => ({
    org: 'acme',
    node,
    kind: 'agent-upgrade',
    haGroup,
    managementPolicy: 'p',
    grantedAt: new Date(0),
    leaseExpiresAt: new Date(0),
    haltedAt: null,
    haltError: null,
  });

  it('ends only the grants of a group the node is no longer in', () => {
    expect(heldOutsideGroup([grant('n1', 'g1')], 'g1')).toEqual([]);
    expect(heldOutsideGroup([grant('n1', null)], null)).toEqual([]);
    expect(heldOutsideGroup([grant('n1', 'g1')], 'g2')).toEqual([grant('n1', 'g1')]);
    expect(heldOutsideGroup([grant('n1', 'g1')], null)).toEqual([grant('n1', 'g1')]);
    expect(heldOutsideGroup([grant('n1', null)], 'g1')).toEqual([grant('n1', null)]);
  });
});
