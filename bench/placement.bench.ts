/**
 * `npm run bench -- placement [nodes] [policies] [end-to-end nodes]`: the agbot's placement
 * engine on a fleet with racks, cordoned nodes and maintenance, half the policies `all` and half
 * `replicas`. Figures: a full placement, and the time from one node's policy change to its new
 * desired workloads through the incremental path — each next to a baseline measured in the same
 * run: a hand-written loop doing only the same compatibility checks (libs/policy, compiled
 * once), without spreading, stability or bookkeeping.
 *
 * Then the same change end to end (support/placement-end-to-end.ts): a real exchange and agbot,
 * a node's policy changed through the API, until the node reads its new desired workloads —
 * next to the exchange's own round trip for that change.
 */
import { compilePolicy, isCompatible, type Property } from '@careen/policy';
import { PlacementEngine } from '@careen/agbot/src/placement/placement-engine';
import { aNode, aPolicy, aService } from '@careen/agbot/src/placement/placement.fixtures';
import { seededRandom } from '@careen/testing';
import { type PlacementNode, type PlacementPolicy } from '@careen/agbot/src/placement/placement.types';
import { startBenchStack } from './support/bench-stack';
import { measurePlacementEndToEnd } from './support/placement-end-to-end';
import { printTable, summarize } from './support/stats';

const NODES = Number(process.argv[2] ?? 10_000);
const POLICIES = Number(process.argv[3] ?? 50);
const SERVICES = 10;
const CHANGES = 500;
const END_TO_END_NODES = Number(process.argv[4] ?? 10_000);
const END_TO_END_CHANGES = 50;
const ZONES = ['north', 'south', 'east', 'west'];
const NOW = new Date('2026-11-20T12:00:00Z');

function fleet(next: () => number): PlacementNode[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  return Array.from({ length: NODES }, (_, i) => nodeAt(i, next, pick));
}

function nodeAt(i: number, next: () => number, pick: <T>(items: readonly T[]) => T): PlacementNode {
  return aNode(`node-${i}`, {
    arch: next() < 0.8 ? 'amd64' : 'arm64',
    rack: next() < 0.7 ? `rack-${Math.floor(next() * 200)}` : null,
    haGroup: next() < 0.2 ? `group-${Math.floor(i / 4)}` : null,
    schedulable: next() > 0.05,
    maintenance: next() < 0.02 ? { session: 'planned' } : null,
    properties: [
      { name: 'careen.cpus', value: 1 + Math.floor(next() * 16), type: 'int' },
      { name: 'zone', value: pick(ZONES) },
      { name: 'gpu', value: next() < 0.2 },
    ],
    constraints: next() < 0.5 ? ['team == red || team == blue'] : [],
  });
}

function policies(next: () => number): PlacementPolicy[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  return Array.from({ length: POLICIES }, (_, i) =>
    aPolicy(`policy-${i}`, {
      url: `svc-${i % SERVICES}`,
      versionRange: '^1',
      properties: [{ name: 'team', value: i % 2 === 0 ? 'red' : 'blue' }],
      constraints: [
        `careen.cpus >= ${1 + Math.floor(next() * 8)}`,
        `zone in "${pick(ZONES)},${pick(ZONES)}"`,
        'NOT gpu',
      ],
      replicas: i % 2 === 0 ? undefined : 1 + Math.floor(next() * 200),
    }),
  );
}

function services() {
  return Array.from({ length: SERVICES }, (_, i) => [
    aService('1.0.0', { url: `svc-${i}` }),
    aService('1.1.0', { url: `svc-${i}` }),
    aService('1.2.0', { url: `svc-${i}` }),
    aService('2.0.0', { url: `svc-${i}` }),
    aService('1.0.0', { url: `svc-${i}`, arch: 'arm64' }),
    aService('1.1.0', { url: `svc-${i}`, arch: 'arm64' }),
  ]).flat();
}

function time<T>(run: () => T): { ms: number; value: T } {
  const started = process.hrtime.bigint();
  const value = run();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
}

/** The same compatibility checks as placement, hand-written: compile, then check every pair. */
function baseline(nodes: PlacementNode[], dps: PlacementPolicy[]): number {
  const compiledNodes = nodes.map((node) => ({
    node,
    arch: node.policy.properties.find((p) => p.name === 'careen.arch')?.value,
    policy: compilePolicy({
      properties: node.policy.properties as Property[],
      constraints: node.policy.constraints,
    }),
  }));
  const compiledPolicies = dps.map((dp) =>
    compilePolicy({ properties: dp.properties as Property[], constraints: dp.constraints }),
  );
  let matches = 0;
  for (const policy of compiledPolicies) {
    for (const entry of compiledNodes) {
      if (entry.node.schedulable && entry.node.maintenance === null && isCompatible(entry.policy, policy))
        matches++;
    }
  }
  return matches;
}

function engineAlone(): void {
  const next = seededRandom(42);
  const nodes = fleet(next);
  const dps = policies(next);
  const catalog = services();
  const pairs = NODES * POLICIES;

  // Warm up both paths once so that the figures compare steady states.
  baseline(nodes, dps);
  new PlacementEngine(() => NOW).load({ nodes, policies: dps, services: catalog });

  // Interleaved, so that a busy machine slows both alike.
  const baselineRuns: { ms: number }[] = [];
  const loadRuns: { ms: number }[] = [];
  let engine = new PlacementEngine(() => NOW);
  for (let run = 0; run < 7; run++) {
    baselineRuns.push(time(() => baseline(nodes, dps)));
    engine = new PlacementEngine(() => NOW);
    loadRuns.push(time(() => engine.load({ nodes, policies: dps, services: catalog })));
  }
  const placed = dps.reduce((sum, dp) => sum + (engine.placementOf('acme', dp.name)?.nodes.length ?? 0), 0);
  const baselineMs = summarize(baselineRuns.map((run) => run.ms)).p50;
  const loadMs = summarize(loadRuns.map((run) => run.ms)).p50;

  // One node's policy changes (a property flips, a constraint comes or goes): time to its new workloads.
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const nodeChanges: number[] = [];
  const baselineOneNode: number[] = [];
  const compiledPolicies = dps.map((dp) =>
    compilePolicy({ properties: dp.properties as Property[], constraints: dp.constraints }),
  );
  let moved = 0;
  for (let change = 0; change < CHANGES; change++) {
    const index = Math.floor(next() * NODES);
    const changed = { ...nodeAt(index, next, pick), id: `node-${index}` };
    const step = time(() => engine.upsertNode(changed));
    nodeChanges.push(step.ms);
    moved += step.value.length;
    baselineOneNode.push(
      time(() => {
        const policy = compilePolicy({
          properties: changed.policy.properties as Property[],
          constraints: changed.policy.constraints,
        });
        let matches = 0;
        for (const dp of compiledPolicies) if (isCompatible(policy, dp)) matches++;
        return matches;
      }).ms,
    );
  }
  const removals = Array.from({ length: 100 }, () => {
    const index = Math.floor(next() * NODES);
    return time(() => engine.removeNode('acme', `node-${index}`)).ms;
  });
  const policyChanges = Array.from({ length: 20 }, (_, i) => {
    const dp = dps[(i * 7) % dps.length] as PlacementPolicy;
    return time(() =>
      engine.upsertPolicy({ ...dp, constraints: [...(dp.constraints ?? []), 'careen.cpus >= 2'] }),
    ).ms;
  });

  const node = summarize(nodeChanges);
  const nodeBase = summarize(baselineOneNode);
  const removal = summarize(removals);
  const policy = summarize(policyChanges);
  printTable(
    `placement: ${NODES} nodes × ${POLICIES} policies (${POLICIES / 2} replicas, ${POLICIES / 2} all) = ${pairs} pairs; ${placed} workloads placed`,
    [
      {
        path: 'baseline: compile + compatibility loop',
        'p50 ms': baselineMs,
        'pairs/s': (pairs / baselineMs) * 1000,
      },
      {
        path: 'PlacementEngine.load (full placement)',
        'p50 ms': loadMs,
        'pairs/s': (pairs / loadMs) * 1000,
        'ratio to baseline': loadMs / baselineMs,
      },
    ],
  );
  printTable(
    `incremental: ${CHANGES} single-node policy changes (${moved} node workload sets changed in all)`,
    [
      {
        path: 'baseline: recompile one node + check it against every policy',
        'p50 ms': nodeBase.p50,
        'p99 ms': nodeBase.p99,
        'max ms': nodeBase.max,
      },
      {
        path: 'PlacementEngine.upsertNode → changed workloads',
        'p50 ms': node.p50,
        'p99 ms': node.p99,
        'max ms': node.max,
        'ratio to baseline (p50)': node.p50 / nodeBase.p50,
      },
      {
        path: 'PlacementEngine.removeNode',
        'p50 ms': removal.p50,
        'p99 ms': removal.p99,
        'max ms': removal.max,
      },
      {
        path: 'PlacementEngine.upsertPolicy (one policy re-placed)',
        'p50 ms': policy.p50,
        'p99 ms': policy.p99,
        'max ms': policy.max,
      },
      { path: 'full placement instead (for comparison)', 'p50 ms': loadMs },
    ],
  );
}

async function endToEnd(): Promise<void> {
  const stack = await startBenchStack({ postgres: true });
  try {
    const figures = await measurePlacementEndToEnd(stack, {
      nodes: END_TO_END_NODES,
      policies: POLICIES,
      changes: END_TO_END_CHANGES,
    });
    printTable(
      `end to end: ${END_TO_END_NODES} nodes × ${POLICIES} policies (mode all, ${figures.workloadsPerNode} per node), ` +
        `real exchange + agbot; ${END_TO_END_CHANGES} single-node policy changes that swap all of the node's workloads ` +
        `(first placement of the whole fleet: ${Math.round(figures.initialPlacementMs)} ms; ` +
        `the node polled its workloads ${figures.polls.p50} times per change at p50, ${figures.polls.max} at most)`,
      [
        {
          path: 'baseline: exchange alone, PUT node policy → GET node answers it',
          'p50 ms': figures.exchangeRoundTrip.p50,
          'p99 ms': figures.exchangeRoundTrip.p99,
          'max ms': figures.exchangeRoundTrip.max,
        },
        {
          path: 'PUT node policy → GET workloads (as the node) shows the new set',
          'p50 ms': figures.endToEnd.p50,
          'p99 ms': figures.endToEnd.p99,
          'max ms': figures.endToEnd.max,
          'ratio to baseline (p50)': figures.endToEnd.p50 / figures.exchangeRoundTrip.p50,
        },
      ],
    );
  } finally {
    await stack.stop();
  }
}

engineAlone();
endToEnd().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
