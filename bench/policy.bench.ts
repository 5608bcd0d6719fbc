/**
 * `npm run bench -- policy [nodes] [policies]`: bidirectional compatibility checks per second
 * for every node × every deployment policy, compiled once, next to a hand-written predicate
 * doing the same comparisons on plain objects (the floor any constraint engine can reach).
 */
import { compatible, compilePolicy, isCompatible, type Property } from '@careen/policy';
import { seededRandom } from '@careen/testing';
import { printTable } from './support/stats';

const NODES = Number(process.argv[2] ?? 10_000);
const POLICIES = Number(process.argv[3] ?? 50);
const ARCHES = ['amd64', 'arm64', 'arm'];
const ZONES = ['north', 'south', 'east', 'west'];

interface PlainNode {
  arch: string;
  cpus: number;
  zone: string;
  agentVersion: string;
  gpu: boolean;
}
interface PlainPolicy {
  arch: string;
  minCpus: number;
  zones: string[];
  team: string;
}

function main(): void {
  // Seeded, so every run checks the same fleet.
  const next = seededRandom(42);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)] as T;
  const nodes: PlainNode[] = Array.from({ length: NODES }, () => ({
    arch: pick(ARCHES),
    cpus: 1 + Math.floor(next() * 16),
    zone: pick(ZONES),
    agentVersion: `2.${Math.floor(next() * 5)}.${Math.floor(next() * 10)}`,
    gpu: next() < 0.2,
  }));
  const policies: PlainPolicy[] = Array.from({ length: POLICIES }, (_, i) => ({
    arch: pick(ARCHES),
    minCpus: 1 + Math.floor(next() * 8),
    zones: [pick(ZONES), pick(ZONES)],
    team: i % 2 === 0 ? 'red' : 'blue',
  }));

  const nodeParty = (node: PlainNode) => ({
    properties: [
      { name: 'careen.arch', value: node.arch },
      { name: 'careen.cpus', value: node.cpus, type: 'int' },
      { name: 'zone', value: node.zone },
      { name: 'careen.agentVersion', value: node.agentVersion, type: 'version' },
      { name: 'gpu', value: node.gpu },
    ] as Property[],
    constraints: ['team == red || team == blue'],
  });
  const policyParty = (policy: PlainPolicy) => ({
    properties: [{ name: 'team', value: policy.team }] as Property[],
    constraints: [
      `careen.arch == ${policy.arch} && careen.cpus >= ${policy.minCpus}`,
      `zone in "${policy.zones.join('","')}"`,
      'careen.agentVersion in [2.1.0,INFINITY) AND NOT gpu',
    ],
  });

  const compileStarted = performance.now();
  const compiledNodes = nodes.map((node) => compilePolicy(nodeParty(node)));
  const compiledPolicies = policies.map((policy) => compilePolicy(policyParty(policy)));
  const compileMs = performance.now() - compileStarted;

  const checks = NODES * POLICIES;
  const time = (run: () => number) => {
    const started = performance.now();
    const matches = run();
    return { ms: performance.now() - started, matches };
  };
  const engine = time(() => {
    let matches = 0;
    for (const node of compiledNodes)
      for (const policy of compiledPolicies) if (isCompatible(node, policy)) matches++;
    return matches;
  });
  const handWritten = time(() => {
    let matches = 0;
    const versionOk = (v: string) => {
      const [major = 0, minor = 0] = v.split('.').map(Number);
      return major > 2 || (major === 2 && minor >= 1);
    };
    for (const node of nodes) {
      for (const policy of policies) {
        const teamOk = policy.team === 'red' || policy.team === 'blue';
        const nodeOk =
          node.arch === policy.arch &&
          node.cpus >= policy.minCpus &&
          policy.zones.includes(node.zone) &&
          versionOk(node.agentVersion) &&
          !node.gpu;
        if (teamOk && nodeOk) matches++;
      }
    }
    return matches;
  });
  const withReasons = time(() => {
    let matches = 0;
    for (const node of compiledNodes.slice(0, Math.ceil(NODES / 10))) {
      for (const policy of compiledPolicies) if (compatible(node, policy).compatible) matches++;
    }
    return matches;
  });
  if (engine.matches !== handWritten.matches) {
    throw new Error(
      `the engine found ${engine.matches} matches, the hand-written predicate ${handWritten.matches}`,
    );
  }

  const rate = (ms: number, count: number) => (count / ms) * 1000;
  printTable(
    `policy: ${NODES} nodes × ${POLICIES} policies = ${checks} checks, ${engine.matches} compatible; compiled in ${Math.round(compileMs)} ms`,
    [
      {
        path: 'hand-written predicate',
        'checks/s': rate(handWritten.ms, checks),
        'total ms': handWritten.ms,
      },
      {
        path: 'libs/policy isCompatible',
        'checks/s': rate(engine.ms, checks),
        'total ms': engine.ms,
        'ratio to hand-written': handWritten.ms / engine.ms,
      },
      {
        path: 'libs/policy compatible (with reasons, 10% of nodes)',
        'checks/s': rate(withReasons.ms, checks / 10),
        'total ms': withReasons.ms,
      },
    ],
  );
}

main();
