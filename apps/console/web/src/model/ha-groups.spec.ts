import { groupViews } from './ha-groups';

describe('the HA-group view model', () => {
  const groups = [
    { name: 'g1', description: '', members: ['a', 'b', 'c'] },
    { name: 'g2', description: 'edge', members: ['d'] },
  ];
  const versions = new Map<string, string | null>([
    ['a', '2.0.0'],
    ['b', '1.0.0'],
    ['c', '1.0.0'],
  ]);

  it('joins the holder, the waiting members and each member newest status', () => {
    const views = groupViews(
      groups,
      [
        {
          haGroup: 'g1',
          state: 'busy',
          holder: {
            node: 'b',
            kind: 'agent-upgrade',
            managementPolicy: 'up',
            grantedAt: 't',
            leaseExpiresAt: 'u',
          },
          halted: null,
        },
      ],
      versions,
      [
        { node: 'a', nmp: 'old', status: 'failed', error: 'boom', updated: '2026-01-01T00:00:00Z' },
        { node: 'a', nmp: 'up', status: 'successful', error: null, updated: '2026-01-02T00:00:00Z' },
        { node: 'b', nmp: 'up', status: 'initiated', error: null, updated: '2026-01-02T00:00:00Z' },
        { node: 'c', nmp: 'up', status: 'ha-waiting', error: null, updated: '2026-01-02T00:00:00Z' },
      ],
    );
    expect(views[0]).toMatchObject({ name: 'g1', waiting: ['c'], slot: { state: 'busy' } });
    expect(
      views[0]!.members.map((member) => [
        member.node,
        member.version,
        member.status?.status,
        member.holdsSlot,
      ]),
    ).toEqual([
      ['a', '2.0.0', 'successful', false],
      ['b', '1.0.0', 'initiated', true],
      ['c', '1.0.0', 'ha-waiting', false],
    ]);
    // A group the agbot does not list yet is free.
    expect(views[1]).toMatchObject({ name: 'g2', slot: { state: 'free', holder: null }, waiting: [] });
    expect(views[1]!.members[0]).toMatchObject({ node: 'd', version: null, status: null });
  });

  it('counts the member that halted its group as holding the slot', () => {
    const [view] = groupViews(
      [groups[0]!],
      [
        {
          haGroup: 'g1',
          state: 'halted',
          holder: null,
          halted: { node: 'a', managementPolicy: 'up', error: 'x', since: 't' },
        },
      ],
      versions,
      [],
    );
    expect(view!.members.filter((member) => member.holdsSlot).map((member) => member.node)).toEqual(['a']);
  });
});
