import { aNode, aPolicy, aService } from '../placement/placement.fixtures';
import { seededRandom } from '@careen/testing';
import { PlacementEngine } from '../placement/placement-engine';
import { FakeFleet, type FakeNodeSpec } from './rollout.fixtures';
import { RolloutPlanner } from './rollout-planner';
import { readRolloutState } from './rollout-state';
import { type RolloutPlan, type RolloutState } from './rollout.types';

const START = new Date('2026-11-20T12:00:00Z').getTime();
const STEP_MS = 10_000;
const DEADLINE_MS = 60_000;

interface Run {
  plans: RolloutPlan[];
  state: RolloutState;
  steps: number;
}

/**
 * Drives planner and fleet tick by tick until nothing changes for a while, checking after every
 * change and every tick that each HA group keeps a member running the service.
 */
function simulate(
  fleet: FakeFleet,
  options: {
    target: string;
    ids?: readonly string[];
    groups?: readonly string[];
    parallelism?: number;
    /** Also check that at most one member per group is between versions (default true). */
    oneAtATime?: boolean;
    steps?: number;
    state?: RolloutState;
    startStep?: number;
    beforeStep?: (step: number, state: RolloutState) => RolloutState | void;
    afterStep?: (step: number, plan: RolloutPlan) => void;
  },
): Run {
  const planner = new RolloutPlanner();
  const plans: RolloutPlan[] = [];
  let state = options.state ?? readRolloutState({});
  const steps = options.steps ?? 40;
  const assertServing = (when: string) => {
    for (const group of options.groups ?? []) {
      const serving = fleet.servingIn(group, options.ids);
      if (serving.length === 0) throw new Error(`no member of ${group} runs the service ${when}`);
    }
  };
  assertServing('before the rollout');
  for (let step = options.startStep ?? 0; step < (options.startStep ?? 0) + steps; step++) {
    state = options.beforeStep?.(step, state) ?? state;
    const plan = planner.plan({
      deploymentPolicy: 'web',
      members: fleet.members(options.target, options.ids),
      now: new Date(START + step * STEP_MS),
      parallelism: options.parallelism ?? 1,
      memberDeadlineMs: DEADLINE_MS,
      state,
    });
    plans.push(plan);
    // What the leader persists is JSON: read it back as a successor would.
    state = readRolloutState(JSON.parse(JSON.stringify(plan.state)));
    fleet.apply(plan.changes);
    assertServing(`after the changes of step ${step}`);
    if (options.oneAtATime !== false) {
      for (const group of options.groups ?? []) {
        const moving = fleet.moving(options.ids).filter((id) => fleet.groupOf(id) === group);
        if (moving.length > 1)
          throw new Error(`${moving.join(', ')} of ${group} move at once at step ${step}`);
      }
    }
    fleet.tick();
    assertServing(`after tick ${step}`);
    options.afterStep?.(step, plan);
  }
  return { plans, state, steps };
}

function groupNodes(group: string, count: number, extra: Partial<FakeNodeSpec> = {}): FakeNodeSpec[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${group}-${i}`, haGroup: group, ...extra }));
}

function timesMoved(fleet: FakeFleet, id: string): number {
  return fleet.history.get(id)?.length ?? 0;
}

describe('RolloutPlanner', () => {
  it('rolls a homogeneous HA group one member at a time, each only after the previous runs', () => {
    const fleet = new FakeFleet(groupNodes('g', 3));
    const ids = ['g-0', 'g-1', 'g-2'];
    const run = simulate(fleet, {
      target: '2.0.0',
      groups: ['g'],
      afterStep: () => expect(fleet.moving(ids).length).toBeLessThanOrEqual(1),
    });
    for (const id of ids) {
      expect(fleet.runningVersion(id)).toBe('2.0.0');
      expect(timesMoved(fleet, id)).toBe(1);
    }
    expect(run.plans.at(-1)?.groups).toEqual([{ group: 'g', status: 'done', members: 3, upgraded: 3 }]);
    const started = run.plans
      .flatMap((plan) => plan.events)
      .filter((event) => event.type === 'member-started');
    expect(started.map((event) => event.node)).toEqual(ids);
  });

  it('counts only members meant to run the service in a heterogeneous group (docs/domain.md, HA groups)', () => {
    // A group of four: `base` runs everywhere, `camera` only on the members with a camera.
    const fleetNodes = [
      aNode('edge-0', { haGroup: 'line-1', properties: [{ name: 'camera', value: true }] }),
      aNode('edge-1', { haGroup: 'line-1' }),
      aNode('edge-2', { haGroup: 'line-1', properties: [{ name: 'camera', value: true }] }),
      aNode('edge-3', { haGroup: 'line-1' }),
    ];
    const engine = new PlacementEngine(() => new Date(START));
    engine.load({
      nodes: fleetNodes,
      policies: [
        aPolicy('base', { url: 'acme.base' }),
        aPolicy('camera', { url: 'acme.camera', constraints: ['camera == true'] }),
      ],
      services: [aService('2.0.0', { url: 'acme.base' }), aService('2.0.0', { url: 'acme.camera' })],
    });
    const meant = (policy: string) =>
      (engine.placementOf('acme', policy)?.nodes ?? []).map((entry) => entry.node);
    expect(meant('base')).toHaveLength(4);
    expect(meant('camera')).toEqual(['edge-0', 'edge-2']);

    for (const policy of ['base', 'camera']) {
      const ids = meant(policy);
      const fleet = new FakeFleet(fleetNodes.map((node) => ({ id: node.id, haGroup: 'line-1' })));
      const run = simulate(fleet, {
        target: '2.0.0',
        ids,
        groups: ['line-1'],
        afterStep: () => expect(fleet.moving(ids).length).toBeLessThanOrEqual(1),
      });
      for (const id of ids) expect(fleet.runningVersion(id)).toBe('2.0.0');
      expect(run.plans.at(-1)?.groups).toEqual([
        { group: 'line-1', status: 'done', members: ids.length, upgraded: ids.length },
      ]);
    }
  });

  it('never moves the only member meant to run the service while it serves', () => {
    const fleet = new FakeFleet(groupNodes('solo', 3));
    const run = simulate(fleet, { target: '2.0.0', ids: ['solo-1'], groups: ['solo'], steps: 5 });
    expect(timesMoved(fleet, 'solo-1')).toBe(0);
    expect(run.plans.at(-1)?.groups[0]).toMatchObject({ status: 'blocked', node: 'solo-1' });
  });

  it('halts a group whose member never comes up and keeps the others serving the old version', () => {
    const fleet = new FakeFleet([
      { id: 'g-0', haGroup: 'g' },
      { id: 'g-1', haGroup: 'g', broken: ['2.0.0'] },
      { id: 'g-2', haGroup: 'g' },
    ]);
    const run = simulate(fleet, { target: '2.0.0', groups: ['g'], steps: 30 });
    expect(fleet.runningVersion('g-0')).toBe('2.0.0');
    expect(fleet.runningVersion('g-1')).toBeUndefined();
    expect(fleet.runningVersion('g-2')).toBe('1.0.0');
    expect(timesMoved(fleet, 'g-2')).toBe(0);
    const last = run.plans.at(-1) as RolloutPlan;
    expect(last.groups[0]).toMatchObject({ status: 'halted', node: 'g-1' });
    expect(last.groups[0]?.reason).toContain(
      'did not report 2.0.0 running within 60s (last reported: 2.0.0 failed)',
    );
    const halts = run.plans.flatMap((plan) => plan.events).filter((event) => event.type === 'group-halted');
    expect(halts).toHaveLength(1);

    // A new target is a new attempt: the halt is lifted and the group moves on, one at a time.
    const retry = simulate(fleet, { target: '2.0.1', groups: ['g'], state: run.state, startStep: 100 });
    for (const id of ['g-0', 'g-1', 'g-2']) expect(fleet.runningVersion(id)).toBe('2.0.1');
    expect(retry.plans.at(-1)?.groups[0]?.status).toBe('done');
  });

  it('moves on to a newer target mid-rollout without moving two members at once', () => {
    const fleet = new FakeFleet(groupNodes('g', 3));
    const first = simulate(fleet, { target: '2.0.0', groups: ['g'], steps: 4 });
    expect(first.plans.at(-1)?.groups[0]?.status).toBe('upgrading');
    simulate(fleet, { target: '3.0.0', groups: ['g'], state: first.state, startStep: 4, steps: 30 });
    for (const id of ['g-0', 'g-1', 'g-2']) expect(fleet.runningVersion(id)).toBe('3.0.0');
    expect(fleet.history.get('g-2')).toEqual(['3.0.0']);
  });

  it('skips offline members, and moves them one at a time once they are back', () => {
    const fleet = new FakeFleet([...groupNodes('g', 3), { id: 'g-3', haGroup: 'g', online: false }]);
    const first = simulate(fleet, { target: '2.0.0', groups: ['g'], steps: 20 });
    expect(fleet.desiredVersion('g-3')).toBe('1.0.0');
    expect(first.plans.at(-1)?.groups[0]).toMatchObject({ status: 'waiting-offline', upgraded: 3 });

    fleet.setOnline('g-3', true);
    const second = simulate(fleet, {
      target: '2.0.0',
      groups: ['g'],
      state: first.state,
      startStep: 50,
      steps: 10,
    });
    expect(fleet.runningVersion('g-3')).toBe('2.0.0');
    expect(second.plans.at(-1)?.groups[0]?.status).toBe('done');
  });

  it('lets a member that went offline mid-move go, instead of waiting for it', () => {
    const fleet = new FakeFleet(groupNodes('g', 3));
    let offlineAt: number | undefined;
    simulate(fleet, {
      target: '2.0.0',
      groups: ['g'],
      steps: 20,
      // g-0 stays between versions while it is away; that is the point.
      oneAtATime: false,
      afterStep: (step, plan) => {
        if (offlineAt === undefined && plan.changes.some((change) => change.node === 'g-0')) {
          offlineAt = step;
          fleet.setOnline('g-0', false);
        }
      },
    });
    expect(fleet.runningVersion('g-1')).toBe('2.0.0');
    expect(fleet.runningVersion('g-2')).toBe('2.0.0');
  });

  it('moves nodes outside groups at the configured parallelism', () => {
    const ids = Array.from({ length: 10 }, (_, i) => `n${i}`);
    const fleet = new FakeFleet(ids.map((id) => ({ id })));
    let most = 0;
    simulate(fleet, {
      target: '2.0.0',
      parallelism: 3,
      afterStep: () => {
        most = Math.max(most, fleet.moving().length);
      },
    });
    expect(most).toBe(3);
    for (const id of ids) {
      expect(fleet.runningVersion(id)).toBe('2.0.0');
      expect(timesMoved(fleet, id)).toBe(1);
    }
  });

  it('stops spreading a version that never comes up outside groups once every slot is stuck', () => {
    const ids = Array.from({ length: 6 }, (_, i) => `n${i}`);
    const fleet = new FakeFleet(ids.map((id) => ({ id, broken: ['2.0.0'] })));
    const run = simulate(fleet, { target: '2.0.0', parallelism: 2, steps: 30 });
    expect(ids.filter((id) => timesMoved(fleet, id) > 0)).toHaveLength(2);
    expect(run.plans.at(-1)?.ungrouped.overdue).toHaveLength(2);
  });

  it('gives new placements their target at once, without waiting for a slot', () => {
    const plan = new RolloutPlanner().plan({
      deploymentPolicy: 'web',
      members: ['a', 'b'].map((node) => ({
        node,
        haGroup: 'g',
        desiredVersion: null,
        targetVersion: '2.0.0',
        actual: null,
        online: true,
      })),
      now: new Date(START),
      parallelism: 1,
      memberDeadlineMs: DEADLINE_MS,
    });
    expect(plan.changes).toEqual([
      { node: 'a', from: null, version: '2.0.0' },
      { node: 'b', from: null, version: '2.0.0' },
    ]);
  });

  it('writes an unwritten change again for the same member rather than starting another', () => {
    const fleet = new FakeFleet(groupNodes('g', 3));
    const planner = new RolloutPlanner();
    const input = (state: RolloutState | undefined, step: number) => ({
      deploymentPolicy: 'web',
      members: fleet.members('2.0.0'),
      now: new Date(START + step * STEP_MS),
      parallelism: 1,
      memberDeadlineMs: DEADLINE_MS,
      state,
    });
    const first = planner.plan(input(undefined, 0));
    // The leader persisted its state and died before writing the change.
    const second = planner.plan(input(JSON.parse(JSON.stringify(first.state)) as RolloutState, 1));
    expect(second.changes).toEqual(first.changes);
    expect(second.events).toEqual([]);
  });

  describe('leader changes', () => {
    it('never moves a member twice when a successor resumes from the persisted state', () => {
      const fleet = new FakeFleet([...groupNodes('a', 3), ...groupNodes('b', 2), { id: 'x' }, { id: 'y' }]);
      simulate(fleet, {
        target: '2.0.0',
        groups: ['a', 'b'],
        // Every step is planned by a new planner from the JSON the previous one left.
        beforeStep: (_, state) => readRolloutState(JSON.parse(JSON.stringify(state))),
      });
      for (const id of ['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'x', 'y']) {
        expect(timesMoved(fleet, id)).toBe(1);
        expect(fleet.runningVersion(id)).toBe('2.0.0');
      }
    });

    it('stays safe when the successor has a stale or no state', () => {
      const fleet = new FakeFleet(groupNodes('g', 4), 3);
      const ids = ['g-0', 'g-1', 'g-2', 'g-3'];
      const history: RolloutState[] = [];
      simulate(fleet, {
        target: '2.0.0',
        groups: ['g'],
        beforeStep: (step, state) => {
          history.push(state);
          if (step % 3 === 1) return readRolloutState({});
          if (step % 3 === 2) return history[Math.max(0, history.length - 3)];
          return state;
        },
        afterStep: () => expect(fleet.moving(ids).length).toBeLessThanOrEqual(1),
      });
      for (const id of ids) {
        expect(timesMoved(fleet, id)).toBe(1);
        expect(fleet.runningVersion(id)).toBe('2.0.0');
      }
    });
  });

  describe('properties (seeded random fleets)', () => {
    it.each([1, 2, 3, 4, 5, 6, 7, 8])(
      'keeps every group serving through failures, partitions and leader changes (seed %i)',
      (seed) => {
        const next = seededRandom(seed);
        const specs: FakeNodeSpec[] = [];
        const groups: string[] = [];
        for (let g = 0; g < 4; g++) {
          const group = `g${g}`;
          groups.push(group);
          const size = 2 + Math.floor(next() * 4);
          for (let i = 0; i < size; i++) {
            specs.push({ id: `${group}-${i}`, haGroup: group, broken: next() < 0.15 ? ['2.0.0'] : [] });
          }
        }
        for (let i = 0; i < 6; i++) specs.push({ id: `u${i}`, broken: next() < 0.15 ? ['2.0.0'] : [] });
        const fleet = new FakeFleet(specs, 1 + Math.floor(next() * 3));
        const partitioned = new Set<string>();
        const states: RolloutState[] = [];
        simulate(fleet, {
          target: '2.0.0',
          groups,
          // A member released while partitioned may still be between versions when it returns.
          oneAtATime: false,
          parallelism: 1 + Math.floor(next() * 3),
          steps: 80,
          beforeStep: (_, state) => {
            states.push(state);
            const roll = next();
            if (roll < 0.1) return readRolloutState({});
            if (roll < 0.2) return states[Math.floor(next() * states.length)];
            return state;
          },
          afterStep: () => {
            for (const spec of specs) {
              if (partitioned.has(spec.id) ? next() < 0.3 : next() < 0.03) {
                if (partitioned.has(spec.id)) partitioned.delete(spec.id);
                else partitioned.add(spec.id);
                fleet.setOnline(spec.id, !partitioned.has(spec.id));
              }
            }
          },
        });
        for (const spec of specs) expect(timesMoved(fleet, spec.id)).toBeLessThanOrEqual(1);
      },
    );
  });
});
