import { dependencyStages, findCycle } from './dependency-graph';

describe('the groups’ dependencies', () => {
  it('puts each group one stage after its latest dependency', () => {
    expect(
      dependencyStages([
        { name: 'control', depends_on: ['ntp'] },
        { name: 'compute', depends_on: ['control'] },
        { name: 'monitoring', depends_on: [] },
        { name: 'ntp', depends_on: [] },
        { name: 'edge', depends_on: ['ntp', 'compute'] },
      ]),
    ).toEqual([['monitoring', 'ntp'], ['control'], ['compute'], ['edge']]);
  });

  it('finds no cycle in a DAG and names one where there is', () => {
    expect(
      findCycle([
        { name: 'a', depends_on: ['b'] },
        { name: 'b', depends_on: [] },
      ]),
    ).toBeUndefined();
    expect(
      findCycle([
        { name: 'x', depends_on: [] },
        { name: 'a', depends_on: ['b', 'x'] },
        { name: 'b', depends_on: ['a'] },
      ]),
    ).toEqual(['a', 'b', 'a']);
  });

  it("orders a stage as Shipyard's networkx does: by when a group's last dependency ran", () => {
    expect(
      dependencyStages([
        { name: 'a', depends_on: [] },
        { name: 'b', depends_on: [] },
        { name: 'late', depends_on: ['b'] },
        { name: 'early', depends_on: ['a'] },
      ]),
    ).toEqual([
      ['a', 'b'],
      ['early', 'late'],
    ]);
  });
});
