import { type UpgradeHolderKind } from '@careen/contracts';
import { findViolations, type TimelineEvent } from './upgrade-timeline';

let id = 0;
const event = (
  node: string,
  kind: UpgradeHolderKind,
  what: 'granted' | 'released',
  atMs: number,
  haGroup: string | null = 'g',
): TimelineEvent => ({
  id: ++id,
  org: 'acme',
  node,
  kind,
  haGroup,
  event: what,
  reason: what === 'released' ? 'released' : null,
  at: new Date(atMs),
});

describe('findViolations', () => {
  it('accepts holders that follow each other', () => {
    expect(
      findViolations(
        [
          event('a', 'agent-upgrade', 'granted', 1),
          event('a', 'agent-upgrade', 'released', 2),
          event('b', 'agent-upgrade', 'granted', 3),
          event('b', 'agent-upgrade', 'released', 4),
        ],
        1,
      ),
    ).toEqual([]);
  });

  it('reports two agent upgrades overlapping in one group, whatever order the rows come in', () => {
    const violations = findViolations(
      [
        event('b', 'agent-upgrade', 'granted', 2),
        event('a', 'agent-upgrade', 'granted', 1),
        event('a', 'agent-upgrade', 'released', 3),
      ],
      1,
    );
    expect(violations).toEqual([
      expect.objectContaining({ haGroup: 'g', problem: expect.stringContaining('b') }),
    ]);
  });

  it('ignores nodes outside groups and separates groups', () => {
    expect(
      findViolations(
        [
          event('a', 'agent-upgrade', 'granted', 1, null),
          event('b', 'agent-upgrade', 'granted', 1, null),
          event('c', 'agent-upgrade', 'granted', 1, 'g1'),
          event('d', 'agent-upgrade', 'granted', 1, 'g2'),
        ],
        1,
      ),
    ).toEqual([]);
  });

  it('reports reboots beyond the slots, reboots during an upgrade, and releases of slots nobody held', () => {
    const problems = findViolations(
      [
        event('a', 'fleetlock', 'granted', 1),
        event('b', 'fleetlock', 'granted', 2),
        event('c', 'fleetlock', 'granted', 3),
        event('x', 'agent-upgrade', 'released', 4, 'h'),
      ],
      2,
    ).map((violation) => violation.problem);
    expect(problems).toEqual([
      expect.stringContaining('beyond the 2 FleetLock slot'),
      expect.stringContaining('did not hold'),
    ]);
    expect(
      findViolations([event('u', 'agent-upgrade', 'granted', 1), event('r', 'fleetlock', 'granted', 2)], 5),
    ).toHaveLength(1);
  });

  it('reports any other holder beside a maintenance, and a maintenance beside any holder', () => {
    const problems = findViolations(
      [
        event('m', 'maintenance', 'granted', 1),
        event('r', 'fleetlock', 'granted', 2),
        event('u', 'agent-upgrade', 'granted', 3),
        event('n', 'maintenance', 'granted', 4),
      ],
      5,
    ).map((violation) => violation.problem);
    expect(problems).toEqual([
      expect.stringContaining('reboot during a maintenance slot'),
      expect.stringContaining('u was granted its agent-upgrade slot while 2 other member(s)'),
      expect.stringContaining('n was granted its maintenance slot while 3 other member(s)'),
    ]);
  });
});
