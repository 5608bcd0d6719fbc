import fc from 'fast-check';
import { parse } from 'yaml';
import { planStrategy } from '../strategies/strategy-plan';
import { readStrategy } from '@careen/contracts';
import { type DeploymentStrategy, type StrategyGroup } from '@careen/contracts';
import { unmetCriteria } from '../strategies/success-criteria';
import { SEED_STRATEGY_YAML } from '@careen/contracts/src/strategies/seed-strategy.fixture';
import { seedFleet } from '../testing/seed-fleet';
import {
  initialProgress,
  type NodeOutcome,
  type Phase,
  type RolloutEvent,
  RolloutEngine,
  type RolloutProgress,
} from './rollout-engine';

const NOW = new Date('2026-12-01T00:00:00Z');

interface Run {
  progress: RolloutProgress;
  events: RolloutEvent[];
  sends: { group: string; phase: Phase; nodes: string[] }[];
  outcome: 'completed' | 'failed';
  reason?: string;
  /** Checks made while the rollout ran; a test asserts the list is empty. */
  violations: string[];
}

/** Runs a rollout to its end, each node answering each phase as `answer` says. */
function runRollout(
  strategy: DeploymentStrategy,
  nodes: ReturnType<typeof seedFleet>,
  answer: (node: string, phase: Phase) => NodeOutcome = () => ({ ok: true }),
): Run {
  const plan = planStrategy(strategy, nodes);
  const engine = new RolloutEngine(strategy, plan.groups);
  const progress = initialProgress(plan.groups);
  const events: RolloutEvent[] = [];
  const sends: Run['sends'] = [];
  const violations: string[] = [];
  for (let steps = 0; steps < 10_000; steps++) {
    const step = engine.next(progress, NOW, events);
    if (step.kind === 'finished')
      return { progress, events, sends, outcome: step.outcome, reason: step.reason, violations };
    if (step.kind === 'wait') throw new Error('a phase was sent and not answered');
    if (step.phase === 'prepare') {
      const group = strategy.groups.find((each) => each.name === step.group)!;
      for (const dependency of group.depends_on)
        if (progress.groups[dependency]!.phase !== 'succeeded')
          violations.push(`${group.name} started before ${dependency} succeeded`);
    }
    sends.push({ group: step.group, phase: step.phase, nodes: step.nodes });
    engine.finishPhase(
      progress,
      new Map(step.nodes.map((node) => [node, answer(node, step.phase)])),
      NOW,
      events,
    );
    const group = strategy.groups.find((each) => each.name === step.group)!;
    const judged = progress.groups[step.group]!;
    const counts = engine.judged(progress, step.group, step.phase);
    const passes = unmetCriteria(group.success_criteria, counts).length === 0;
    if (passes !== (judged.phase === (step.phase === 'prepare' ? 'deploying' : 'succeeded')))
      violations.push(
        `${group.name} judged ${judged.phase} after ${step.phase} on ${JSON.stringify(counts)}`,
      );
  }
  throw new Error('the rollout did not end');
}

function seedStrategy(): DeploymentStrategy {
  const reading = readStrategy(parse(SEED_STRATEGY_YAML));
  if (!('strategy' in reading)) throw new Error('the seed strategy must read');
  return reading.strategy;
}

const orderOf = (run: Run) =>
  run.events
    .filter((event) => event.kind === 'group' && event.event === 'started')
    .map((event) => (event as { group: string }).group);

describe("a rollout of Shipyard's example strategy (docs/domain.md, Airship Shipyard)", () => {
  it('runs every group, prepare then deploy, in an order Shipyard allows', () => {
    const run = runRollout(seedStrategy(), seedFleet());
    expect(run).toMatchObject({ outcome: 'completed', violations: [] });
    expect(orderOf(run)).toEqual([
      'monitoring-nodes',
      'ntp-node',
      'control-nodes',
      'compute-nodes-1',
      'compute-nodes-2',
    ]);
    expect(run.sends.map((send) => `${send.phase} ${send.group}`)).toEqual([
      'prepare monitoring-nodes',
      'deploy monitoring-nodes',
      'prepare ntp-node',
      'deploy ntp-node',
      'prepare control-nodes',
      'deploy control-nodes',
      'prepare compute-nodes-1',
      'deploy compute-nodes-1',
      'prepare compute-nodes-2',
      'deploy compute-nodes-2',
    ]);
    expect(Object.values(run.progress.nodes).every((node) => node.state === 'success')).toBe(true);
  });

  it('fails the dependents of a failed ntp-node and then the rollout, but still runs monitoring-nodes', () => {
    const run = runRollout(seedStrategy(), seedFleet(), (node, phase) =>
      node === 'ntp01' && phase === 'prepare' ? { ok: false, error: 'download failed' } : { ok: true },
    );
    expect(run.outcome).toBe('failed');
    expect(run.reason).toBe('critical group(s) failed: control-nodes, ntp-node');
    expect(run.progress.groups['ntp-node']).toMatchObject({
      phase: 'failed',
      reason: 'prepare did not meet the success criteria: 0 node(s) succeeded, 1 needed',
    });
    expect(run.progress.groups['ntp-node']!.sent.deploy).toBeUndefined();
    for (const name of ['control-nodes', 'compute-nodes-1', 'compute-nodes-2'])
      expect(run.progress.groups[name]).toMatchObject({
        phase: 'failed',
        reason: expect.stringMatching(/^due to dependency/),
      });
    expect(run.progress.groups['compute-nodes-1']!.reason).toBe(
      'due to dependency: group "control-nodes" failed',
    );
    expect(run.progress.groups['monitoring-nodes']!.phase).toBe('succeeded');
    expect(run.progress.nodes.ctl01!.state).toBe('not started');
  });

  it('completes with a failed compute group, its nodes named', () => {
    const run = runRollout(seedStrategy(), seedFleet(), (node, phase) =>
      node.startsWith('cmp2') && phase === 'deploy' ? { ok: false, error: 'rolled back' } : { ok: true },
    );
    expect(run).toMatchObject({ outcome: 'completed', reason: '1 non-critical group(s) failed' });
    expect(run.progress.groups['compute-nodes-2']).toMatchObject({ phase: 'failed' });
    expect(run.progress.nodes.cmp21).toMatchObject({
      state: 'failure',
      error: 'rolled back',
      group: 'compute-nodes-2',
    });
  });
});

describe('rollout rules', () => {
  const g = (name: string, extra: Partial<StrategyGroup> = {}): StrategyGroup => ({
    name,
    critical: false,
    depends_on: [],
    selectors: [],
    ...extra,
  });
  const named = (...ids: string[]) => [{ node_names: ids, node_tags: [], node_labels: [], rack_names: [] }];

  it('sends a node chosen by two groups once, and counts its result for both', () => {
    const strategy = {
      name: 's',
      groups: [
        g('first', { selectors: named('ctl01') }),
        g('second', {
          depends_on: ['first'],
          selectors: named('ctl01', 'ctl02'),
          success_criteria: { minimum_successful_nodes: 2 },
        }),
      ],
    };
    const run = runRollout(strategy, seedFleet());
    expect(run.sends.filter((send) => send.group === 'second').map((send) => send.nodes)).toEqual([
      ['ctl02'],
      ['ctl02'],
    ]);
    expect(run.progress.groups.second!.phase).toBe('succeeded');
  });

  it('passes a group without nodes whatever its criteria, as Shipyard does', () => {
    const strategy = {
      name: 's',
      groups: [
        g('none', { selectors: named('ghost'), success_criteria: { percent_successful_nodes: 100 } }),
        g('too-few', {
          critical: true,
          selectors: named('ghost'),
          success_criteria: { minimum_successful_nodes: 1 },
        }),
      ],
    };
    const run = runRollout(strategy, seedFleet());
    expect(run.progress.groups.none!.phase).toBe('succeeded');
    expect(run.progress.groups['too-few']!.phase).toBe('succeeded');
    expect(run.outcome).toBe('completed');
    expect(run.sends.every((send) => send.nodes.length === 0)).toBe(true);
  });

  it('records each answer as it arrives, and judges the group once all have answered', () => {
    const strategy = { name: 's', groups: [g('pair', { selectors: named('ctl01', 'ctl02') })] };
    const plan = planStrategy(strategy, seedFleet());
    const engine = new RolloutEngine(strategy, plan.groups);
    const progress = initialProgress(plan.groups);
    engine.next(progress, NOW);
    const later = new Date(NOW.getTime() + 5_000);
    expect(engine.recordAnswer(progress, 'ctl01', { ok: true }, later)).toBe(true);
    expect(progress.nodes.ctl01).toMatchObject({ state: 'prepared', preparedAt: later.toISOString() });
    expect(progress.nodes.ctl02!.state).toBe('not started');
    expect(progress.groups.pair!.phase).toBe('preparing');
    const end = new Date(NOW.getTime() + 9_000);
    engine.finishPhase(
      progress,
      new Map([
        ['ctl01', { ok: true }],
        ['ctl02', { ok: true }],
      ]),
      end,
    );
    expect(progress.nodes.ctl01!.preparedAt).toBe(later.toISOString());
    expect(progress.nodes.ctl02!.preparedAt).toBe(end.toISOString());
  });

  it('cancels the groups not started, and forgets the status of nodes that had not answered', () => {
    const strategy = {
      name: 's',
      groups: [g('first', { selectors: named('ctl01', 'ctl02') }), g('later', { selectors: named('cmp11') })],
    };
    const plan = planStrategy(strategy, seedFleet());
    const engine = new RolloutEngine(strategy, plan.groups);
    const progress = initialProgress(plan.groups);
    engine.next(progress, NOW);
    progress.nodes.ctl02!.status = 'ha-waiting';
    engine.cancel(progress, new Map([['ctl01', { ok: true }]]), NOW);
    expect(progress.groups.first!.phase).toBe('failed');
    expect(progress.groups.later).toMatchObject({ phase: 'cancelled' });
    expect(progress.nodes.ctl01!.state).toBe('prepared');
    expect(progress.nodes.ctl02).toMatchObject({ state: 'not started' });
    expect(progress.nodes.ctl02!.status).toBeUndefined();
  });

  it('keeps its promises on random strategies and random node outcomes', () => {
    const fleet = seedFleet();
    const ids = fleet.map((node) => node.id);
    const arbitraryGroup = (index: number) =>
      fc.record({
        critical: fc.boolean(),
        depends: fc.subarray([...Array(index).keys()]),
        nodes: fc.option(fc.subarray(ids), { nil: undefined }),
        criteria: fc.option(
          fc.record(
            {
              percent_successful_nodes: fc.integer({ min: 0, max: 100 }),
              minimum_successful_nodes: fc.integer({ min: 0, max: 5 }),
              maximum_failed_nodes: fc.integer({ min: 0, max: 3 }),
            },
            { requiredKeys: [] },
          ),
          { nil: undefined },
        ),
      });
    const arbitraryStrategy = fc
      .integer({ min: 1, max: 7 })
      .chain((count) => fc.tuple(...[...Array(count).keys()].map(arbitraryGroup)))
      .chain((groups) =>
        fc
          .shuffledSubarray(
            groups.map((_, index) => index),
            { minLength: groups.length },
          )
          .map((order) => ({
            name: 'random',
            // Dependencies point at earlier groups, so no cycle; declared in a shuffled order.
            groups: order.map((index) => {
              const group = groups[index]!;
              return g(`g${index}`, {
                critical: group.critical,
                depends_on: group.depends.map((dependency) => `g${dependency}`),
                selectors: group.nodes ? named(...group.nodes) : [],
                ...(group.criteria && { success_criteria: group.criteria }),
              });
            }),
          })),
      );
    fc.assert(
      fc.property(arbitraryStrategy, fc.func(fc.boolean()), (strategy, fails) => {
        const run = runRollout(strategy, fleet, (node, phase) =>
          fails(node, phase) ? { ok: false, error: `${phase} failed` } : { ok: true },
        );
        expect(run.violations).toEqual([]);
        for (const phase of ['prepare', 'deploy'] as const) {
          const sent = run.sends.filter((send) => send.phase === phase).flatMap((send) => send.nodes);
          expect(new Set(sent).size).toBe(sent.length);
        }
        const preparedFailed = new Set(
          run.sends
            .filter((send) => send.phase === 'prepare')
            .flatMap((send) => send.nodes.filter((node) => fails(node, 'prepare'))),
        );
        for (const send of run.sends.filter((each) => each.phase === 'deploy'))
          for (const node of send.nodes) expect(preparedFailed.has(node)).toBe(false);
        for (const group of strategy.groups) {
          const groupRun = run.progress.groups[group.name]!;
          expect(['succeeded', 'failed']).toContain(groupRun.phase);
          const failedDependency = group.depends_on.find(
            (dependency) => run.progress.groups[dependency]!.phase === 'failed',
          );
          if (failedDependency) {
            expect(groupRun.phase).toBe('failed');
            expect(groupRun.sent).toEqual({});
          }
          if (!group.success_criteria && !failedDependency) expect(groupRun.phase).toBe('succeeded');
        }
        const criticalFailed = strategy.groups.some(
          (group) => group.critical && run.progress.groups[group.name]!.phase === 'failed',
        );
        expect(run.outcome).toBe(criticalFailed ? 'failed' : 'completed');
      }),
      { numRuns: 300 },
    );
  });
});
