import { selectNodes, type SelectableNode } from './node-selection';
import { type NodeSelector } from '@careen/contracts';

const node = (
  id: string,
  tags: string[],
  rack: string | null,
  labels: Record<string, string> = {},
): SelectableNode => ({
  id,
  tags,
  rack,
  labels,
  haGroup: null,
});
const selector = (criteria: Partial<NodeSelector>): NodeSelector => ({
  node_names: [],
  node_tags: [],
  node_labels: [],
  rack_names: [],
  ...criteria,
});

const fleet = [
  node('node01', ['control'], 'rack01'),
  node('node02', ['control'], 'rack02'),
  node('node03', ['compute'], 'rack01'),
  node('node04', [], null, { ucp_control_plane: 'enabled' }),
  node('node05', [], null, { ucp_control_plane: 'disabled' }),
];
const ids = (selectors: NodeSelector[]) => selectNodes(selectors, fleet).map((each) => each.id);

describe('choosing nodes by selectors', () => {
  it("intersects a selector's criteria and unites the selectors, as Shipyard's example", () => {
    expect(
      ids([
        selector({ node_names: ['node01', 'node02'], rack_names: ['rack01'], node_tags: ['control'] }),
        selector({ node_names: ['node04'], node_labels: [{ ucp_control_plane: 'enabled' }] }),
      ]),
    ).toEqual(['node01', 'node04']);
  });

  it('ignores empty criteria, and chooses every node without selectors or with only empty ones', () => {
    expect(ids([selector({ node_tags: ['control'], node_names: [] })])).toEqual(['node01', 'node02']);
    expect(ids([])).toHaveLength(5);
    expect(ids([selector({ node_tags: [] })])).toHaveLength(5);
  });

  it("drops a selector without criteria from a union with others, as Shipyard's node lookup does", () => {
    expect(ids([selector({ node_tags: [] }), selector({ node_tags: ['control'] })])).toEqual([
      'node01',
      'node02',
    ]);
  });

  it('matches a label by key and value, and a rack only on nodes that have one', () => {
    expect(ids([selector({ node_labels: [{ ucp_control_plane: 'disabled' }] })])).toEqual(['node05']);
    expect(ids([selector({ rack_names: ['rack02', 'rack09'] })])).toEqual(['node02']);
    expect(ids([selector({ node_names: ['ghost'] })])).toEqual([]);
  });
});
