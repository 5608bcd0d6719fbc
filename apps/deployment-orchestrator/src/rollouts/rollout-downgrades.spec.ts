import { downgradedNodes } from './rollout-downgrades';

describe('the nodes a rollout would take down', () => {
  const nodes = [
    { id: 'a1', agentVersion: '2.0.0' },
    { id: 'a2', agentVersion: '1.0.0' },
    { id: 'b1', agentVersion: '3.1.0' },
    { id: 'c1', agentVersion: null },
    { id: 'd1', agentVersion: 'dev-build' },
  ];

  it('names the chosen nodes above the version with what they run, in the order chosen', () => {
    expect(downgradedNodes(nodes, ['b1', 'a1', 'a2'], '1.5.0')).toEqual([
      { node_id: 'b1', running: '3.1.0' },
      { node_id: 'a1', running: '2.0.0' },
    ]);
  });

  it('leaves out nodes at or below it, not chosen, or whose version is unknown or not semantic', () => {
    expect(downgradedNodes(nodes, ['a1', 'a2'], '2.0.0')).toEqual([]);
    expect(downgradedNodes(nodes, ['a2', 'c1', 'd1', 'ghost'], '0.9.0')).toEqual([
      { node_id: 'a2', running: '1.0.0' },
    ]);
  });
});
