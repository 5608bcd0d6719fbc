import { readStrategy } from '@careen/contracts';
import fc from 'fast-check';
import { planStrategy } from '../strategies/strategy-plan';
import {
  runShipyard,
  type ShipyardGroup,
  type ShipyardNode,
  type ShipyardStage,
} from '../testing/shipyard-model';
import { initialProgress, type NodeState, type Phase, RolloutEngine } from './rollout-engine';

const NOW = new Date('2026-12-01T00:00:00Z');
const TAGS = ['control', 'compute', 'storage'];
const RACKS = ['rack01', 'rack02'];

const NODE_STAGE: Record<NodeState, ShipyardStage> = {
  'not started': 'NOT_STARTED',
  prepared: 'PREPARED',
  success: 'DEPLOYED',
  failure: 'FAILED',
};

/** Careen's plan and engine run to the end on the document, as the driver would feed them. */
function runCareen(
  document: unknown,
  inventory: readonly ShipyardNode[],
  succeeds: (node: string, phase: Phase) => boolean,
) {
  const reading = readStrategy(document);
  if ('problems' in reading) throw new Error(`refused: ${JSON.stringify(reading.problems)}`);
  const strategy = reading.strategy;
  const plan = planStrategy(
    strategy,
    inventory.map((node) => ({ ...node, labels: {}, haGroup: null })),
  );
  const engine = new RolloutEngine(strategy, plan.groups);
  const progress = initialProgress(plan.groups);
  const sent: { group: string; phase: Phase; nodes: string[] }[] = [];
  for (;;) {
    const step = engine.next(progress, NOW);
    if (step.kind === 'finished') return { progress, sent, outcome: step.outcome };
    if (step.kind === 'wait') throw new Error('a phase was sent and not answered');
    if (step.nodes.length > 0) sent.push({ group: step.group, phase: step.phase, nodes: step.nodes });
    engine.finishPhase(
      progress,
      new Map(
        step.nodes.map((node) => [
          node,
          succeeds(node, step.phase) ? { ok: true } : { ok: false, error: `${step.phase} failed` },
        ]),
      ),
      NOW,
    );
  }
}

const sorted = <T>(values: readonly T[]) => [...values].sort();

const inventory = fc
  .uniqueArray(
    fc.record({
      id: fc.constantFrom('n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'),
      tags: fc.subarray(TAGS),
      rack: fc.constantFrom<string | null>(...RACKS, null),
    }),
    { minLength: 1, maxLength: 7, selector: (node) => node.id },
  )
  .map((nodes) => nodes as ShipyardNode[]);

/** A selector Shipyard's schema accepts: at least one field, any of them possibly empty. */
const selector = fc
  .record(
    {
      node_names: fc.subarray(['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'], { maxLength: 3 }),
      node_tags: fc.subarray(TAGS, { maxLength: 2 }),
      rack_names: fc.subarray(RACKS),
    },
    { requiredKeys: [] },
  )
  .filter((each) => Object.keys(each).length > 0);

const criteria = fc
  .record(
    {
      percent_successful_nodes: fc.integer({ min: 0, max: 100 }),
      minimum_successful_nodes: fc.integer({ min: 0, max: 4 }),
      maximum_failed_nodes: fc.integer({ min: 0, max: 3 }),
    },
    { requiredKeys: [] },
  )
  .filter((each) => Object.keys(each).length > 0);

/** Groups depending only on groups generated before them, declared in a shuffled order. */
const groups = fc
  .integer({ min: 1, max: 6 })
  .chain((count) =>
    fc.tuple(
      ...[...Array(count).keys()].map((index) =>
        fc.record({
          critical: fc.boolean(),
          depends: fc.subarray([...Array(index).keys()]),
          selectors: fc.array(selector, { maxLength: 3 }),
          criteria: fc.option(criteria, { nil: undefined }),
        }),
      ),
    ),
  )
  .chain((drawn) =>
    fc.shuffledSubarray([...drawn.keys()], { minLength: drawn.length }).map((order) =>
      order.map((index): ShipyardGroup => ({
        name: `g${index}`,
        critical: drawn[index]!.critical,
        depends_on: drawn[index]!.depends.map((dependency) => `g${dependency}`),
        selectors: drawn[index]!.selectors,
        ...(drawn[index]!.criteria && { success_criteria: drawn[index]!.criteria }),
      })),
    ),
  );

describe("a Shipyard document reaches Shipyard's end", () => {
  it('gives every group, node and the rollout the end Shipyard gives, sending the same nodes', () => {
    fc.assert(
      fc.property(groups, inventory, fc.func(fc.boolean()), (strategyGroups, nodes, fails) => {
        const succeeds = (node: string, phase: Phase) => !fails(node, phase);
        const document = {
          schema: 'shipyard/DeploymentStrategy/v1',
          metadata: { name: 'parity' },
          data: { groups: strategyGroups },
        };
        const shipyard = runShipyard(strategyGroups, nodes, succeeds);
        const careen = runCareen(document, nodes, succeeds);
        expect(careen.outcome).toBe(shipyard.failed ? 'failed' : 'completed');
        expect(
          Object.fromEntries(
            Object.entries(careen.progress.groups).map(([name, run]) => [
              name,
              run.phase === 'succeeded' ? 'DEPLOYED' : run.phase === 'failed' ? 'FAILED' : run.phase,
            ]),
          ),
        ).toEqual(shipyard.groups);
        expect(
          Object.fromEntries(
            Object.entries(careen.progress.nodes).map(([node, run]) => [node, NODE_STAGE[run.state]]),
          ),
        ).toEqual(shipyard.nodes);
        expect(careen.sent.map((each) => ({ ...each, nodes: sorted(each.nodes) }))).toEqual(
          shipyard.sent.map((each) => ({ ...each, nodes: sorted(each.nodes) })),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('selects only the control nodes for an empty selector beside a control one', () => {
    const nodes: ShipyardNode[] = [
      { id: 'ctl', tags: ['control'], rack: null },
      { id: 'cmp', tags: ['compute'], rack: null },
    ];
    const run = runCareen(
      {
        name: 's',
        groups: [
          {
            name: 'g',
            critical: true,
            depends_on: [],
            selectors: [{ node_tags: [] }, { node_tags: ['control'] }],
          },
        ],
      },
      nodes,
      () => true,
    );
    expect(Object.keys(run.progress.nodes)).toEqual(['ctl']);
  });

  it('leaves a node prepared by a group that then failed, and fails the later group that counts it', () => {
    const nodes: ShipyardNode[] = [
      { id: 'shared', tags: [], rack: null },
      { id: 'other', tags: [], rack: null },
    ];
    const named = (...ids: string[]) => [{ node_names: ids }];
    const document = {
      name: 's',
      groups: [
        {
          name: 'first',
          critical: false,
          depends_on: [],
          selectors: named('shared', 'other'),
          success_criteria: { percent_successful_nodes: 100 },
        },
        {
          name: 'second',
          critical: true,
          depends_on: [],
          selectors: named('shared'),
          success_criteria: { minimum_successful_nodes: 1 },
        },
      ],
    };
    const succeeds = (node: string, phase: Phase) => !(node === 'other' && phase === 'prepare');
    const run = runCareen(document, nodes, succeeds);
    expect(run.progress.nodes.shared!.state).toBe('prepared');
    expect(run.sent.filter((each) => each.group === 'second')).toEqual([]);
    expect(run.progress.groups.second!.phase).toBe('failed');
    expect(run.outcome).toBe('failed');
  });
});
