import { seededRandom } from '@careen/testing';
import { fnv1a, spreadReplicas, type SpreadNode } from './replica-spreader';

function randomNodes(next: () => number, count: number): Map<string, SpreadNode> {
  const nodes = new Map<string, SpreadNode>();
  for (let i = 0; i < count; i++) {
    const key = `acme/n${i}`;
    const domain = next() < 0.6 ? `rack:r${Math.floor(next() * 5)}` : `node:n${i}`;
    nodes.set(key, { domain, domainHash: fnv1a(domain), keyHash: fnv1a(key) });
  }
  return nodes;
}

describe('spreadReplicas', () => {
  it.each([1, 2, 3, 4, 5, 6])(
    'adds replicas one by one exactly as it adds them all at once (seed %i)',
    (seed) => {
      const next = seededRandom(seed);
      const nodes = randomNodes(next, 40);
      const request = (replicas: number, holders: Iterable<string>) =>
        spreadReplicas({
          seed: fnv1a(`policy-${seed}`),
          replicas,
          candidates: nodes,
          holders,
          nodeOf: (key) => nodes.get(key) as SpreadNode,
        });
      const target = 5 + Math.floor(next() * 30);
      const atOnce = request(target, []);
      let oneByOne = new Set<string>();
      for (let replicas = 1; replicas <= target; replicas++) oneByOne = request(replicas, oneByOne);
      expect([...oneByOne].sort()).toEqual([...atOnce].sort());
    },
  );

  it('keeps holders that are still candidates and drops the others', () => {
    const nodes = randomNodes(seededRandom(9), 10);
    const candidates = new Set([...nodes.keys()].slice(0, 8));
    const chosen = spreadReplicas({
      seed: 1,
      replicas: 3,
      candidates,
      holders: ['acme/n0', 'acme/n9'],
      nodeOf: (key) => nodes.get(key) as SpreadNode,
    });
    expect(chosen.has('acme/n0')).toBe(true);
    expect(chosen.has('acme/n9')).toBe(false);
    expect(chosen.size).toBe(3);
  });

  it('gives different policies different nodes when every node is alike', () => {
    const nodes = randomNodes(() => 0.9, 100);
    const pick = (policy: string) =>
      spreadReplicas({
        seed: fnv1a(policy),
        replicas: 1,
        candidates: nodes,
        holders: [],
        nodeOf: (key) => nodes.get(key) as SpreadNode,
      });
    const picks = new Set(Array.from({ length: 20 }, (_, i) => [...pick(`p${i}`)][0]));
    expect(picks.size).toBeGreaterThan(10);
  });
});
