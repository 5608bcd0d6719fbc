import { aNode, aPolicy, aService } from './placement.fixtures';
import { PlacementEngine } from './placement-engine';
import { type InstanceGroupRule, type PlacementNode } from './placement.types';

const NOW = new Date('2026-11-20T12:00:00Z');
const IN_MAINTENANCE = { from: '2026-11-20T00:00:00Z', until: '2026-11-21T00:00:00Z' };

function holders(engine: PlacementEngine, policy: string): string[] {
  return (engine.placementOf('acme', policy)?.nodes ?? []).map((entry) => entry.node);
}

function group(policies: string[], perHost = 1): InstanceGroupRule {
  return { org: 'acme', id: 'ha', policies, perHost };
}

function nodes(count: number): PlacementNode[] {
  return Array.from({ length: count }, (_, i) => aNode(`n${i + 1}`));
}

describe('placement within instance groups', () => {
  const names = Array.from({ length: 8 }, (_, i) => `vnf-${i}`);
  const load = (engine: PlacementEngine, instanceGroups: InstanceGroupRule[]) =>
    engine.load({
      nodes: nodes(8),
      policies: names.map((name) => aPolicy(name, { replicas: 1 })),
      services: [aService('1.0.0')],
      instanceGroups,
    });
  const perNode = (engine: PlacementEngine) => {
    const counts = new Map<string, number>();
    for (const name of names)
      for (const node of holders(engine, name)) counts.set(node, (counts.get(node) ?? 0) + 1);
    return counts;
  };

  it('puts no two instances of an anti-affinity group on one node', () => {
    const free = new PlacementEngine(() => NOW);
    load(free, []);
    // Without the group, the policies' hashes put some of them together: the rule is what parts them.
    expect(Math.max(...perNode(free).values())).toBeGreaterThan(1);

    const engine = new PlacementEngine(() => NOW);
    load(engine, [group(names)]);
    expect([...perNode(engine).values()]).toEqual(Array(8).fill(1));
  });

  it('holds a node to max_instances_per_host of the group', () => {
    const engine = new PlacementEngine(() => NOW);
    engine.load({
      nodes: nodes(2),
      policies: ['a', 'b', 'c', 'd'].map((name) => aPolicy(name, { replicas: 1 })),
      services: [aService('1.0.0')],
      instanceGroups: [group(['a', 'b', 'c', 'd'], 2)],
    });
    const counts = new Map<string, number>();
    for (const name of ['a', 'b', 'c', 'd'])
      for (const node of holders(engine, name)) counts.set(node, (counts.get(node) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ n1: 2, n2: 2 });
  });

  it('moves an instance off a node in maintenance only where the group allows, and back', () => {
    const engine = new PlacementEngine(() => NOW);
    const [n1, n2] = nodes(2) as [PlacementNode, PlacementNode];
    engine.load({
      nodes: [n1, n2],
      policies: [aPolicy('a', { replicas: 1 }), aPolicy('b', { replicas: 1 })],
      services: [aService('1.0.0')],
      current: [
        {
          org: 'acme',
          node: 'n1',
          workloads: [{ deploymentPolicy: 'a', service: { org: 'acme', url: 'acme.web', version: '1.0.0' } }],
        },
        {
          org: 'acme',
          node: 'n2',
          workloads: [{ deploymentPolicy: 'b', service: { org: 'acme', url: 'acme.web', version: '1.0.0' } }],
        },
      ],
      instanceGroups: [group(['a', 'b'])],
    });
    expect([holders(engine, 'a'), holders(engine, 'b')]).toEqual([['n1'], ['n2']]);

    // n1 goes into maintenance: a may not join b on n2, so it waits unplaced rather than share.
    const changed = engine.upsertNode({ ...n1, maintenance: IN_MAINTENANCE });
    expect(changed.map((entry) => entry.node)).toEqual(['n1']);
    expect(holders(engine, 'a')).toEqual([]);
    expect(engine.placementOf('acme', 'a')?.shortfall).toBe(1);

    engine.upsertNode(n1);
    expect(holders(engine, 'a')).toEqual(['n1']);
  });

  it('leaves instances placed before the group where they are, and applies a change of the groups', () => {
    const engine = new PlacementEngine(() => NOW);
    const workload = (policy: string) => ({
      deploymentPolicy: policy,
      service: { org: 'acme', url: 'acme.web', version: '1.0.0' },
    });
    engine.load({
      nodes: [aNode('n1'), aNode('n2', { maintenance: IN_MAINTENANCE })],
      policies: [aPolicy('a', { replicas: 1 }), aPolicy('b', { replicas: 1 }), aPolicy('c', { replicas: 1 })],
      services: [aService('1.0.0')],
      current: [{ org: 'acme', node: 'n1', workloads: [workload('a'), workload('b')] }],
      instanceGroups: [group(['a', 'b', 'c'])],
    });
    // a and b shared n1 before the group: they stay; c, placed anew, has nowhere to go.
    expect([holders(engine, 'a'), holders(engine, 'b'), holders(engine, 'c')]).toEqual([['n1'], ['n1'], []]);

    // The group loosened to three a node: c joins them.
    const changed = engine.setInstanceGroups([group(['a', 'b', 'c'], 3)]);
    expect(changed.map((entry) => entry.node)).toEqual(['n1']);
    expect(holders(engine, 'c')).toEqual(['n1']);
    expect(engine.setInstanceGroups([group(['a', 'b', 'c'], 3)])).toEqual([]);
  });

  it('places an instance that waited once a mate of its group leaves the node it fits', () => {
    const engine = new PlacementEngine(() => NOW);
    engine.load({
      nodes: [aNode('n1')],
      policies: [aPolicy('a', { replicas: 1 }), aPolicy('b', { replicas: 1 })],
      services: [aService('1.0.0')],
      instanceGroups: [group(['a', 'b'])],
    });
    const [waiting, placed] = holders(engine, 'a').length === 0 ? ['a', 'b'] : ['b', 'a'];
    expect(holders(engine, waiting)).toEqual([]);

    const changed = engine.removePolicy('acme', placed);
    expect(changed.map((entry) => entry.node)).toEqual(['n1']);
    expect(holders(engine, waiting)).toEqual(['n1']);
  });

  it('places a policy of mode all on every candidate, whatever its group', () => {
    const engine = new PlacementEngine(() => NOW);
    engine.load({
      nodes: nodes(3),
      policies: [aPolicy('agent-side'), aPolicy('b', { replicas: 1 })],
      services: [aService('1.0.0')],
      instanceGroups: [group(['agent-side', 'b'])],
    });
    expect(holders(engine, 'agent-side')).toEqual(['n1', 'n2', 'n3']);
  });
});
