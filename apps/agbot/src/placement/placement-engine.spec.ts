import { compilePolicy, type CompiledPolicy, isCompatible, type Property } from '@careen/policy';
import { aNode, aPolicy, aService } from './placement.fixtures';
import { seededRandom } from '@careen/testing';
import { PlacementEngine } from './placement-engine';
import { type NodeWorkloads, type PlacementNode, type PlacementPolicy } from './placement.types';

const NOW = new Date('2026-11-20T12:00:00Z');

function engineAt(now = NOW): PlacementEngine {
  return new PlacementEngine(() => now);
}

function holders(engine: PlacementEngine, policy: string, org = 'acme'): string[] {
  return (engine.placementOf(org, policy)?.nodes ?? []).map((entry) => entry.node);
}

function racksOf(engine: PlacementEngine, policy: string, nodes: PlacementNode[]): Record<string, number> {
  const rackOf = new Map(nodes.map((node) => [node.id, node.rack ?? `own:${node.id}`]));
  const counts: Record<string, number> = {};
  for (const id of holders(engine, policy)) {
    const rack = rackOf.get(id) as string;
    counts[rack] = (counts[rack] ?? 0) + 1;
  }
  return counts;
}

describe('PlacementEngine', () => {
  describe('compatibility', () => {
    it('places only where the node satisfies the policy and the policy satisfies the node', () => {
      const engine = engineAt();
      engine.load({
        nodes: [
          aNode('fits', { properties: [{ name: 'zone', value: 'north' }], constraints: ['team == red'] }),
          aNode('wrong-zone', {
            properties: [{ name: 'zone', value: 'south' }],
            constraints: ['team == red'],
          }),
          aNode('wants-blue', {
            properties: [{ name: 'zone', value: 'north' }],
            constraints: ['team == blue'],
          }),
          aNode('no-zone', { constraints: ['team == red'] }),
        ],
        policies: [
          aPolicy('web', { properties: [{ name: 'team', value: 'red' }], constraints: ['zone == north'] }),
        ],
        services: [aService('1.0.0')],
      });
      expect(holders(engine, 'web')).toEqual(['fits']);
    });

    it('ANDs the service policy with the deployment policy', () => {
      const engine = engineAt();
      engine.load({
        nodes: [aNode('gpu', { properties: [{ name: 'gpu', value: true }] }), aNode('plain')],
        policies: [aPolicy('ml', { url: 'acme.ml' })],
        services: [aService('2.0.0', { url: 'acme.ml', constraints: ['gpu == true'] })],
      });
      expect(holders(engine, 'ml')).toEqual(['gpu']);
    });

    it('lets service properties satisfy node constraints', () => {
      const engine = engineAt();
      engine.load({
        nodes: [aNode('picky', { constraints: ['certified'] })],
        policies: [aPolicy('web')],
        services: [aService('1.0.0', { properties: [{ name: 'certified', value: true }] })],
      });
      expect(holders(engine, 'web')).toEqual(['picky']);
    });

    it('chooses the newest version within the range that exists for the node arch', () => {
      const engine = engineAt();
      const result = engine.load({
        nodes: [aNode('x86'), aNode('pi', { arch: 'arm64' }), aNode('mips', { arch: 'mips' })],
        policies: [aPolicy('web', { versionRange: '>=1.0.0 <2.0.0' })],
        services: [
          aService('1.0.0', { arch: 'arm64' }),
          aService('1.2.0'),
          aService('1.4.0'),
          aService('2.0.0'),
          aService('1.1.0', { arch: 'arm64' }),
        ],
      });
      expect(result.map((entry) => [entry.node, entry.workloads[0]?.service.version])).toEqual([
        ['mips', undefined],
        ['pi', '1.1.0'],
        ['x86', '1.4.0'],
      ]);
    });

    it("reads a range written as Open Horizon's interval", () => {
      const engine = engineAt();
      const result = engine.load({
        nodes: [aNode('x86')],
        policies: [aPolicy('web', { versionRange: '[1.0,1.4.0)' })],
        services: [aService('0.9.0'), aService('1.2.0'), aService('1.4.0')],
      });
      expect(result.map((entry) => entry.workloads[0]?.service.version)).toEqual(['1.2.0']);
    });

    it('never places across orgs', () => {
      const engine = engineAt();
      engine.load({
        nodes: [aNode('mine'), aNode('theirs', { org: 'other' })],
        policies: [aPolicy('web')],
        services: [aService('1.0.0')],
      });
      expect(engine.workloadsOf('other', 'theirs')).toEqual([]);
      expect(holders(engine, 'web')).toEqual(['mine']);
    });

    it('places nothing when the range selects no version', () => {
      const engine = engineAt();
      engine.load({
        nodes: [aNode('a')],
        policies: [aPolicy('web', { versionRange: '^3' })],
        services: [aService('1.0.0')],
      });
      expect(engine.placementOf('acme', 'web')).toMatchObject({ nodes: [], candidates: 0 });
    });
  });

  describe('availability', () => {
    it('skips cordoned nodes and nodes under maintenance', () => {
      const engine = engineAt();
      engine.load({
        nodes: [
          aNode('ok'),
          aNode('cordoned', { schedulable: false }),
          aNode('maint', { maintenance: { session: 's1' } }),
          aNode('maint-done', { maintenance: { session: 's0', state: 'MAINTENANCE_COMPLETE' } }),
          aNode('maint-later', { maintenance: { startsAt: '2026-11-21T00:00:00Z' } }),
        ],
        policies: [aPolicy('web')],
        services: [aService('1.0.0')],
      });
      expect(holders(engine, 'web')).toEqual(['maint-done', 'maint-later', 'ok']);
    });

    it('moves a replica off a node that is cordoned, and back only when needed', () => {
      const engine = engineAt();
      const nodes = [aNode('a'), aNode('b'), aNode('c')];
      engine.load({ nodes, policies: [aPolicy('web', { replicas: 2 })], services: [aService('1.0.0')] });
      const [first, second] = holders(engine, 'web') as [string, string];
      const spare = ['a', 'b', 'c'].find((id) => id !== first && id !== second) as string;

      const changed = engine.upsertNode(aNode(first, { schedulable: false }));
      expect(changed.map((entry) => entry.node).sort()).toEqual([first, spare].sort());
      expect(holders(engine, 'web')).toEqual([second, spare].sort());

      expect(engine.upsertNode(aNode(first))).toEqual([]);
      expect(holders(engine, 'web')).toEqual([second, spare].sort());
    });

    it('gives workloads back when a maintenance window closes with time', () => {
      let now = NOW;
      const engine = new PlacementEngine(() => now);
      engine.load({
        nodes: [aNode('m', { maintenance: { until: '2026-11-20T13:00:00Z' } })],
        policies: [aPolicy('web')],
        services: [aService('1.0.0')],
      });
      expect(holders(engine, 'web')).toEqual([]);
      now = new Date('2026-11-20T13:00:01Z');
      expect(engine.refreshAvailability().map((entry) => entry.node)).toEqual(['m']);
      expect(holders(engine, 'web')).toEqual(['m']);
    });

    it('re-checks with time the nodes whose window is set now, not those whose window was lifted', () => {
      let now = NOW;
      const engine = new PlacementEngine(() => now);
      const window = { maintenance: { until: '2026-11-20T13:00:00Z' } };
      engine.load({
        nodes: [aNode('lifted', window), aNode('set-later')],
        policies: [aPolicy('web')],
        services: [aService('1.0.0')],
      });
      expect(holders(engine, 'web')).toEqual(['set-later']);
      engine.upsertNode(aNode('set-later', window));
      engine.upsertNode(aNode('lifted', { maintenance: null }));
      expect(holders(engine, 'web')).toEqual(['lifted']);
      now = new Date('2026-11-20T13:00:01Z');
      expect(engine.refreshAvailability().map((entry) => entry.node)).toEqual(['set-later']);
      expect(holders(engine, 'web').sort()).toEqual(['lifted', 'set-later']);
    });
  });

  describe('replicas', () => {
    const racked = (perRack: number, racks: string[]): PlacementNode[] =>
      racks.flatMap((rack) => Array.from({ length: perRack }, (_, i) => aNode(`${rack}-${i}`, { rack })));

    it('spreads replicas one per rack before doubling up', () => {
      const nodes = racked(4, ['r1', 'r2', 'r3']);
      const engine = engineAt();
      engine.load({ nodes, policies: [aPolicy('web', { replicas: 3 })], services: [aService('1.0.0')] });
      expect(racksOf(engine, 'web', nodes)).toEqual({ r1: 1, r2: 1, r3: 1 });

      engine.upsertPolicy(aPolicy('web', { replicas: 7 }));
      const counts = Object.values(racksOf(engine, 'web', nodes)).sort();
      expect(counts).toEqual([2, 2, 3]);
    });

    it('counts a node without a rack as its own failure domain', () => {
      const nodes = [...racked(3, ['r1']), aNode('loose-1'), aNode('loose-2')];
      const engine = engineAt();
      engine.load({ nodes, policies: [aPolicy('web', { replicas: 3 })], services: [aService('1.0.0')] });
      expect(racksOf(engine, 'web', nodes)).toEqual({ r1: 1, 'own:loose-1': 1, 'own:loose-2': 1 });
    });

    it('reports a shortfall when there are fewer candidates than replicas', () => {
      const engine = engineAt();
      engine.load({
        nodes: [aNode('a'), aNode('b')],
        policies: [aPolicy('web', { replicas: 5 })],
        services: [aService('1.0.0')],
      });
      expect(engine.placementOf('acme', 'web')).toMatchObject({ candidates: 2, shortfall: 3 });
    });

    it('keeps the current holders given at load even when spreading would choose others', () => {
      const nodes = racked(3, ['r1', 'r2']);
      const engine = engineAt();
      const web = { deploymentPolicy: 'web', service: { org: 'acme', url: 'acme.web', version: '1.0.0' } };
      engine.load({
        nodes,
        policies: [aPolicy('web', { replicas: 2 })],
        services: [aService('1.0.0')],
        current: [
          { org: 'acme', node: 'r1-0', workloads: [web] },
          { org: 'acme', node: 'r1-1', workloads: [web] },
        ],
      });
      expect(holders(engine, 'web')).toEqual(['r1-0', 'r1-1']);
    });

    it('gives up replicas from the most crowded rack when the count goes down', () => {
      const nodes = racked(3, ['r1', 'r2']);
      const engine = engineAt();
      const web = { deploymentPolicy: 'web', service: { org: 'acme', url: 'acme.web', version: '1.0.0' } };
      engine.load({
        nodes,
        policies: [aPolicy('web', { replicas: 3 })],
        services: [aService('1.0.0')],
        current: ['r1-0', 'r1-1', 'r2-0'].map((node) => ({ org: 'acme', node, workloads: [web] })),
      });
      engine.upsertPolicy(aPolicy('web', { replicas: 2 }));
      expect(racksOf(engine, 'web', nodes)).toEqual({ r1: 1, r2: 1 });
      expect(holders(engine, 'web')).toContain('r2-0');
    });
  });

  describe('stability', () => {
    const fleet = () =>
      Array.from({ length: 30 }, (_, i) => aNode(`n${String(i).padStart(2, '0')}`, { rack: `r${i % 5}` }));

    function loaded(): PlacementEngine {
      const engine = engineAt();
      engine.load({
        nodes: fleet(),
        policies: [aPolicy('web', { replicas: 4 }), aPolicy('db', { replicas: 2, url: 'acme.db' })],
        services: [aService('1.0.0'), aService('1.0.0', { url: 'acme.db' })],
      });
      return engine;
    }

    it('moves nothing when an unrelated node, policy or label changes', () => {
      const engine = loaded();
      const before = engine.snapshot();
      expect(engine.upsertNode(aNode('n99', { rack: 'r0' }))).toEqual([]);
      const idle = fleetIdle(engine);
      expect(
        engine.upsertNode(aNode(idle, { rack: 'r3', properties: [{ name: 'label', value: 'x' }] })),
      ).toEqual([]);
      engine.upsertPolicy(aPolicy('other', { org: 'elsewhere' }));
      expect(engine.upsertPolicy(aPolicy('web', { replicas: 4 }))).toEqual([]);
      expect(engine.snapshot().filter((entry) => entry.node !== 'n99')).toEqual(before);
    });

    it('rewrites the workloads, not the nodes, when a policy switches to another service', () => {
      const engine = loaded();
      const before = holders(engine, 'db');
      const changed = engine.upsertPolicy(aPolicy('db', { replicas: 2, url: 'acme.web' }));
      expect(holders(engine, 'db')).toEqual(before);
      expect(changed.map((entry) => entry.node).sort()).toEqual(before);
      expect(engine.workloadsOf('acme', before[0] as string)).toContainEqual({
        deploymentPolicy: 'db',
        service: { org: 'acme', url: 'acme.web', version: '1.0.0' },
      });
    });

    it('moves only the replica of a removed node', () => {
      const engine = loaded();
      const before = holders(engine, 'web');
      const gone = before[1] as string;
      const changed = engine.removeNode('acme', gone);
      const after = holders(engine, 'web');
      expect(after).toHaveLength(4);
      expect(after.filter((id) => !before.includes(id))).toHaveLength(1);
      expect(before.filter((id) => !after.includes(id))).toEqual([gone]);
      expect(changed.map((entry) => entry.node)).toEqual(after.filter((id) => !before.includes(id)));
    });

    it('moves only the replica of a node that became incompatible', () => {
      const engine = loaded();
      engine.upsertPolicy(aPolicy('web', { replicas: 4, constraints: ['NOT banned'] }));
      const before = holders(engine, 'web');
      const banned = before[0] as string;
      engine.upsertNode(aNode(banned, { rack: 'r0', properties: [{ name: 'banned', value: true }] }));
      const after = holders(engine, 'web');
      expect(before.filter((id) => !after.includes(id))).toEqual([banned]);
      expect(after.filter((id) => !before.includes(id))).toHaveLength(1);
    });

    function fleetIdle(engine: PlacementEngine): string {
      const busy = new Set([...holders(engine, 'web'), ...holders(engine, 'db')]);
      return fleet().find((node) => !busy.has(node.id))?.id as string;
    }
  });

  describe('properties (seeded random fleets)', () => {
    const ZONES = ['north', 'south', 'east'];

    function randomFleet(next: () => number, count: number): PlacementNode[] {
      return Array.from({ length: count }, (_, i) =>
        aNode(`n${i}`, {
          arch: next() < 0.8 ? 'amd64' : 'arm64',
          rack: next() < 0.7 ? `r${Math.floor(next() * 6)}` : null,
          schedulable: next() > 0.1,
          maintenance: next() < 0.05 ? { session: 's' } : null,
          properties: [{ name: 'zone', value: ZONES[Math.floor(next() * 3)] as string }],
          constraints: next() < 0.2 ? ['tier == gold'] : [],
        }),
      );
    }

    function randomPolicies(next: () => number): PlacementPolicy[] {
      return Array.from({ length: 6 }, (_, i) =>
        aPolicy(`p${i}`, {
          properties: [{ name: 'tier', value: next() < 0.5 ? 'gold' : 'silver' }],
          constraints: next() < 0.5 ? [`zone == ${ZONES[i % 3]}`] : [],
          replicas: i % 2 === 0 ? 1 + Math.floor(next() * 12) : undefined,
        }),
      );
    }

    const services = [aService('1.0.0'), aService('1.1.0'), aService('1.0.0', { arch: 'arm64' })];

    const compiled = new WeakMap<object, CompiledPolicy>();
    const compiledOf = (party: { properties?: readonly unknown[]; constraints?: readonly string[] }) => {
      let policy = compiled.get(party);
      if (!policy) {
        policy = compilePolicy({
          properties: party.properties as Property[],
          constraints: party.constraints,
        });
        compiled.set(party, policy);
      }
      return policy;
    };

    function assertInvariants(
      engine: PlacementEngine,
      nodes: Map<string, PlacementNode>,
      policies: PlacementPolicy[],
    ) {
      for (const policy of policies) {
        const candidates = [...nodes.values()].filter(
          (node) =>
            node.schedulable &&
            node.maintenance === null &&
            isCompatible(compiledOf(node.policy), compiledOf(policy)),
        );
        const placed = engine.placementOf('acme', policy.name);
        const ids = new Set(candidates.map((node) => node.id));
        expect((placed?.nodes ?? []).filter((entry) => !ids.has(entry.node))).toEqual([]);
        const wanted =
          policy.placement.mode === 'all' ? ids.size : Math.min(ids.size, policy.placement.replicas ?? 0);
        expect(placed?.nodes).toHaveLength(wanted);
      }
    }

    it.each([1, 2, 3, 4, 5])('keeps placements valid through random changes (seed %i)', (seed) => {
      const next = seededRandom(seed);
      const fleet = randomFleet(next, 80);
      const policies = randomPolicies(next);
      const nodes = new Map(fleet.map((node) => [node.id, node]));
      const engine = engineAt();
      engine.load({ nodes: fleet, policies, services });
      assertInvariants(engine, nodes, policies);

      for (let step = 0; step < 60; step++) {
        const id = `n${Math.floor(next() * 90)}`;
        if (next() < 0.2 && nodes.has(id)) {
          nodes.delete(id);
          engine.removeNode('acme', id);
        } else {
          const [node] = randomFleet(next, 1) as [PlacementNode];
          const changed = { ...node, id };
          nodes.set(id, changed);
          const before = engine.snapshot();
          const result = engine.upsertNode(changed);
          assertOnlyReportedChanged(before, engine.snapshot(), result);
        }
        assertInvariants(engine, nodes, policies);
      }
    });

    it.each([11, 12, 13])('spreads a fresh placement evenly over failure domains (seed %i)', (seed) => {
      const next = seededRandom(seed);
      const fleet = randomFleet(next, 120).map((node) => ({ ...node, schedulable: true, maintenance: null }));
      const engine = engineAt();
      const replicas = 1 + Math.floor(next() * 40);
      engine.load({ nodes: fleet, policies: [aPolicy('spread', { replicas })], services });
      const domainOf = (node: PlacementNode) => node.rack ?? `own:${node.id}`;
      const load = new Map<string, number>();
      const free = new Map<string, number>();
      const held = new Set(holders(engine, 'spread'));
      for (const node of fleet) {
        const domain = domainOf(node);
        const counts = held.has(node.id) ? load : free;
        counts.set(domain, (counts.get(domain) ?? 0) + 1);
      }
      const heaviest = Math.max(...load.values());
      for (const [domain, count] of free) {
        if (count > 0) expect(load.get(domain) ?? 0).toBeGreaterThanOrEqual(heaviest - 1);
      }
    });
  });
});

function assertOnlyReportedChanged(
  before: NodeWorkloads[],
  after: NodeWorkloads[],
  reported: NodeWorkloads[],
) {
  const key = (entry: NodeWorkloads) => `${entry.org}/${entry.node}`;
  const was = new Map(before.map((entry) => [key(entry), JSON.stringify(entry.workloads)]));
  const actuallyChanged = after
    .filter((entry) => (was.get(key(entry)) ?? '[]') !== JSON.stringify(entry.workloads))
    .map(key)
    .sort();
  expect(reported.map(key).sort()).toEqual(actuallyChanged);
}
