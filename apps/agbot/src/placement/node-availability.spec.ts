import { failureDomain, isUnderMaintenance, nodeArch, unavailabilityReason } from './node-availability';
import { aNode } from './placement.fixtures';

const NOW = new Date('2026-11-20T12:00:00Z');

describe('isUnderMaintenance', () => {
  it.each([
    ['no record', null, false],
    ['a record of any shape', { session: 's1' }, true],
    ['a record marked inactive', { session: 's1', active: false }, false],
    ['a finished session', { session: 's1', state: 'MAINTENANCE_COMPLETE' }, false],
    ['an aborted session', { state: 'aborted' }, false],
    ['a session in progress', { state: 'IN_MAINTENANCE' }, true],
    ['a window that has ended', { until: '2026-11-20T11:59:59Z' }, false],
    ['a window still open', { endsAt: '2026-11-20T12:00:01Z' }, true],
    ['a window not yet open', { startsAt: '2026-11-21T00:00:00Z' }, false],
    ['a window that opened', { start: '2026-11-20T11:00:00Z', end: '2026-11-20T13:00:00Z' }, true],
    ['an unreadable end', { until: 'soon' }, true],
  ])('%s → %s', (_, maintenance, expected) => {
    expect(isUnderMaintenance(maintenance, NOW)).toBe(expected);
  });
});

describe('node facts', () => {
  it('says why a node takes no workloads', () => {
    expect(unavailabilityReason(aNode('a'), NOW)).toBeUndefined();
    expect(unavailabilityReason(aNode('a', { schedulable: false }), NOW)).toBe(
      'node is cordoned (schedulable=false)',
    );
    expect(unavailabilityReason(aNode('a', { maintenance: { session: 's' } }), NOW)).toBe(
      'node is under maintenance',
    );
  });

  it('reads the arch and the failure domain', () => {
    expect(nodeArch(aNode('a', { arch: 'arm64' }))).toBe('arm64');
    expect(nodeArch({ policy: { properties: [], constraints: [] } })).toBeUndefined();
    expect(failureDomain(aNode('a', { rack: 'r1' }))).toBe('rack:r1');
    expect(failureDomain(aNode('a'))).toBe('node:a');
  });
});
