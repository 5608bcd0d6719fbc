import { BOX, layoutGraph } from './graph-layout';

describe('the rollout graph layout', () => {
  it('puts each stage in its own column and joins every dependency to its dependent', () => {
    const layout = layoutGraph(
      [['canary'], ['east', 'west'], ['rest']],
      [
        { name: 'canary', depends_on: [] },
        { name: 'east', depends_on: ['canary'] },
        { name: 'west', depends_on: ['canary'] },
        { name: 'rest', depends_on: ['east', 'west'] },
      ],
    );
    const at = Object.fromEntries(layout.groups.map((group) => [group.name, [group.x, group.y]]));
    const column = BOX.width + BOX.columnGap;
    const row = BOX.height + BOX.rowGap;
    expect(at).toEqual({ canary: [0, 0], east: [column, 0], west: [column, row], rest: [2 * column, 0] });
    expect(layout.edges.map((edge) => `${edge.from}>${edge.to}`)).toEqual([
      'canary>east',
      'canary>west',
      'east>rest',
      'west>rest',
    ]);
    expect(layout.edges[1]).toMatchObject({
      x1: BOX.width,
      y1: BOX.height / 2,
      x2: column,
      y2: row + BOX.height / 2,
    });
    expect([layout.width, layout.height]).toEqual([3 * column - BOX.columnGap, 2 * row - BOX.rowGap]);
  });

  it('draws nothing for an empty rollout and skips dependencies on groups it does not show', () => {
    expect(layoutGraph([], [])).toEqual({ groups: [], edges: [], width: 0, height: 0 });
    expect(layoutGraph([['a']], [{ name: 'a', depends_on: ['gone'] }]).edges).toEqual([]);
  });
});
