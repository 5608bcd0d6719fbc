import { filterRows, type FleetNode, nodeRow, NO_FILTER, OFFLINE_AFTER_MS, summarize } from './fleet';

const NOW = Date.parse('2026-11-26T12:00:00Z');

function node(
  id: string,
  overrides: Partial<FleetNode> = {},
  version: string | null = '1.0.0',
  seenMsAgo = 1000,
) {
  return nodeRow(
    {
      id,
      name: id,
      haGroup: null,
      schedulable: true,
      maintenance: null,
      status:
        version === null
          ? null
          : { lastHeartbeat: new Date(NOW - seenMsAgo).toISOString(), agentVersion: { package: version } },
      ...overrides,
    },
    NOW,
  );
}

describe('the Fleet view model', () => {
  it('counts a node offline once its last poll is older than the agbot allows', () => {
    expect(node('a', {}, '1.0.0', OFFLINE_AFTER_MS).connectivity).toBe('online');
    expect(node('a', {}, '1.0.0', OFFLINE_AFTER_MS + 1).connectivity).toBe('offline');
    expect(node('a', {}, null).connectivity).toBe('unreported');
  });

  it('summarizes versions newest first, numerically, with unreported nodes last', () => {
    const rows = [
      node('a', {}, '1.9.0'),
      node('b', {}, '1.10.0'),
      node('c', {}, '1.9.0'),
      node('d', {}, null),
      node('e', { schedulable: false, maintenance: { session: 's' } }, '1.10.0', OFFLINE_AFTER_MS * 2),
    ];
    expect(summarize(rows)).toEqual({
      total: 5,
      versions: [
        { version: '1.10.0', count: 2 },
        { version: '1.9.0', count: 2 },
        { version: null, count: 1 },
      ],
      conditions: { online: 3, offline: 1, unreported: 1, maintenance: 1, cordoned: 1 },
    });
  });

  it('filters by text in id, name or group, by version and by condition, all at once', () => {
    const rows = [
      node('edge-1', { haGroup: 'east' }, '1.0.0'),
      node('edge-2', { haGroup: 'west' }, '2.0.0'),
      node('core-1', { haGroup: 'east', schedulable: false }, '2.0.0'),
      node('core-2', {}, null),
    ];
    const ids = (filter: Partial<typeof NO_FILTER>) =>
      filterRows(rows, { ...NO_FILTER, ...filter }).map((row) => row.id);
    expect(ids({})).toEqual(['edge-1', 'edge-2', 'core-1', 'core-2']);
    expect(ids({ text: ' EAST ' })).toEqual(['edge-1', 'core-1']);
    expect(ids({ version: '2.0.0' })).toEqual(['edge-2', 'core-1']);
    expect(ids({ version: 'none' })).toEqual(['core-2']);
    expect(ids({ text: 'east', version: '2.0.0', condition: 'cordoned' })).toEqual(['core-1']);
    expect(ids({ condition: 'unreported' })).toEqual(['core-2']);
  });
});
