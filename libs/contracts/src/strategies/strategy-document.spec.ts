import { parse } from 'yaml';
import { SEED_STRATEGY_YAML } from './seed-strategy.fixture';
import { readStrategy } from './strategy-document';

const group = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  critical: false,
  depends_on: [],
  selectors: [],
  ...extra,
});

function problemsOf(input: unknown) {
  const reading = readStrategy(input);
  if (!('problems' in reading)) throw new Error('expected problems');
  return reading.problems;
}

describe('reading a deployment strategy', () => {
  it("takes Shipyard's example document unchanged", () => {
    const reading = readStrategy(parse(SEED_STRATEGY_YAML));
    if (!('strategy' in reading)) throw new Error(JSON.stringify(reading.problems));
    expect(reading.strategy.name).toBe('deployment-strategy');
    expect(reading.strategy.groups.map((each) => each.name)).toEqual([
      'control-nodes',
      'compute-nodes-1',
      'compute-nodes-2',
      'monitoring-nodes',
      'ntp-node',
    ]);
    expect(reading.strategy.groups[0]).toMatchObject({
      critical: true,
      depends_on: ['ntp-node'],
      selectors: [{ node_names: [], node_labels: [], node_tags: ['control'], rack_names: ['rack03'] }],
      success_criteria: {
        percent_successful_nodes: 90,
        minimum_successful_nodes: 3,
        maximum_failed_nodes: 1,
      },
    });
  });

  it('takes the short form, and labels as Shipyard writes them (key:value), as key: value or as key=value', () => {
    const reading = readStrategy({
      name: 'edge',
      groups: [group('a', { selectors: [{ node_labels: ['rack: r1', { zone: 'eu-1' }, 'tier=gold'] }] })],
    });
    expect(reading).toEqual({
      strategy: {
        name: 'edge',
        groups: [
          {
            ...group('a'),
            selectors: [
              {
                node_names: [],
                node_tags: [],
                rack_names: [],
                node_labels: [{ rack: 'r1' }, { zone: 'eu-1' }, { tier: 'gold' }],
              },
            ],
          },
        ],
      },
      warnings: [],
    });
  });

  it("accepts what Shipyard's schema accepts, warning of keys no one reads, no groups and ignored selectors", () => {
    const reading = readStrategy({
      schema: 'shipyard/DeploymentStrategy/v1',
      metadata: { name: 'lenient' },
      data: {
        groups: [group('a', { colour: 'red', selectors: [{ node_tags: [] }, { node_tags: ['control'] }] })],
        extra: true,
      },
    });
    if (!('strategy' in reading)) throw new Error(JSON.stringify(reading.problems));
    expect(reading.strategy.groups[0]!.selectors).toHaveLength(2);
    expect(reading.warnings).toEqual([
      { path: 'data.extra', problem: expect.stringContaining('ignored') },
      { path: 'data.groups[0].colour', problem: expect.stringContaining('ignored') },
      {
        path: 'data.groups[0].selectors[0]',
        problem: expect.stringContaining('ignored beside other selectors'),
      },
    ]);
    const empty = readStrategy({ name: 'nothing', groups: [] });
    expect(empty).toEqual({
      strategy: { name: 'nothing', groups: [] },
      warnings: [{ path: 'groups', problem: 'no groups: a rollout of this strategy sends nothing' }],
    });
    const alone = readStrategy({ name: 'all', groups: [group('a', { selectors: [{ node_tags: [] }] })] });
    expect(alone).toMatchObject({ warnings: [] });
  });

  it("refuses what Shipyard's schema refuses: empty criteria, a selector of no field, a fractional percentage", () => {
    expect(
      problemsOf({
        name: 's',
        groups: [
          group('a', { success_criteria: {} }),
          group('b', { selectors: [{}] }),
          group('c', { success_criteria: { percent_successful_nodes: 50.5 } }),
        ],
      }),
    ).toEqual([
      { path: 'groups[0].success_criteria', problem: expect.stringContaining('at least one of') },
      { path: 'groups[1].selectors[0]', problem: expect.stringContaining('at least one of node_names') },
      {
        path: 'groups[2].success_criteria.percent_successful_nodes',
        problem: 'must be a whole number from 0 to 100',
      },
    ]);
  });

  it('lists every problem at once, each with its path', () => {
    const problems = problemsOf({
      schema: 'shipyard/DeploymentStrategy/v1',
      metadata: { name: 'bad' },
      data: {
        groups: [
          { name: 'a', depends_on: ['ghost'], selectors: [] },
          group('b', { success_criteria: { percent_successful_nodes: 120, maximum_failed_nodes: -1 } }),
          group('b'),
          { name: 'c', critical: 'yes', selectors: [{ node_tags: 'edge', zone: ['x'] }] },
        ],
      },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'data.groups[0].critical', problem: 'required: true or false' },
        { path: 'data.groups[0].depends_on[0]', problem: 'unknown group "ghost"' },
        {
          path: 'data.groups[1].success_criteria.percent_successful_nodes',
          problem: 'must be a whole number from 0 to 100',
        },
        {
          path: 'data.groups[1].success_criteria.maximum_failed_nodes',
          problem: 'must be a whole number, 0 or more',
        },
        { path: 'data.groups[2].name', problem: 'duplicate group name "b" (also data.groups[1])' },
        { path: 'data.groups[3].critical', problem: 'required: true or false' },
        { path: 'data.groups[3].depends_on', problem: 'required: a list, which may be empty' },
        { path: 'data.groups[3].selectors[0].node_tags', problem: 'must be a list of strings' },
        { path: 'data.groups[3].selectors[0].zone', problem: 'unknown field' },
      ]),
    );
  });

  it('names unknown dependencies and the groups along a cycle', () => {
    expect(
      problemsOf({ name: 's', groups: [group('a', { depends_on: ['b', 'nope'] }), group('b')] }),
    ).toEqual([{ path: 'groups[0].depends_on[1]', problem: 'unknown group "nope"' }]);
    expect(
      problemsOf({
        name: 's',
        groups: [
          group('a', { depends_on: ['c'] }),
          group('b', { depends_on: ['a'] }),
          group('c', { depends_on: ['b'] }),
        ],
      }),
    ).toEqual([{ path: 'groups', problem: 'dependency cycle: a → c → b → a (each depends on the next)' }]);
    expect(problemsOf({ name: 's', groups: [group('a', { depends_on: ['a'] })] })).toEqual([
      { path: 'groups[0].depends_on[0]', problem: 'a group cannot depend on itself' },
    ]);
  });

  it('names an unknown dependency and every cycle together', () => {
    expect(
      problemsOf({
        name: 's',
        groups: [
          group('a', { depends_on: ['b', 'ghost'] }),
          group('b', { depends_on: ['a'] }),
          group('c', { depends_on: ['d'] }),
          group('d', { depends_on: ['c'] }),
        ],
      }),
    ).toEqual([
      { path: 'groups[0].depends_on[1]', problem: 'unknown group "ghost"' },
      { path: 'groups', problem: 'dependency cycle: a → b → a (each depends on the next)' },
      { path: 'groups', problem: 'dependency cycle: c → d → c (each depends on the next)' },
    ]);
  });

  it('refuses what is not a strategy at all', () => {
    expect(problemsOf('groups: []')).toEqual([
      { path: '', problem: 'a strategy must be an object (a Shipyard document, or {name, groups})' },
    ]);
    expect(problemsOf({ schema: 'shipyard/Other/v1', metadata: {}, data: { groups: [] } })).toEqual([
      { path: 'schema', problem: 'must be "shipyard/DeploymentStrategy/v1"' },
      { path: 'metadata.name', problem: expect.stringContaining("required: the strategy's name") },
    ]);
    expect(problemsOf({ name: 's' })).toEqual([{ path: 'groups', problem: 'required: a list of groups' }]);
  });
});
