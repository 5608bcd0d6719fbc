import { type PolicyStatus } from '../fleet/fleet-gateway';
import { FIXTURE_STARTED, fixtureRollout } from '../testing/rollout-fixture';
import {
  decideRollout,
  observedPolicy,
  pauseCommands,
  type RolloutObservation,
  type RolloutStep,
} from './rollout-decision';
import { type RolloutRecord } from './rollout-record';

const PREPARE_FIRST = 'rollout-0f1e2d3c-0-prepare';
const DEPLOY_FIRST = 'rollout-0f1e2d3c-0-deploy';
const PREPARE_SECOND = 'rollout-0f1e2d3c-1-prepare';

const at = (seconds: number) => new Date(FIXTURE_STARTED.getTime() + seconds * 1000);
const status = (node: string, value: string, error: string | null = null): PolicyStatus => ({
  node,
  status: value,
  version: null,
  error,
});
const seen = (
  policy: string,
  statuses: PolicyStatus[] | undefined,
  more: Partial<RolloutObservation> = {},
) => ({
  policy,
  statuses,
  paused: false,
  ...more,
});

/** The fixture rollout with its first group's prepare sent at the start. */
function preparing(overrides: Partial<RolloutRecord> = {}): RolloutRecord {
  return decideRollout(fixtureRollout(overrides), undefined, FIXTURE_STARTED).record;
}

/** Steps on from `step`'s rollout, as the driver would once its commands are carried out. */
const then = (step: RolloutStep, observed: RolloutObservation | undefined, seconds: number) =>
  decideRollout(step.record, observed, at(seconds));

describe('a rollout step', () => {
  it('sends the first phase as a policy to create, recording it sent, and leaves the stored rollout as it was', () => {
    const stored = fixtureRollout();
    const before = structuredClone(stored);
    const step = decideRollout(stored, undefined, FIXTURE_STARTED);

    expect(stored).toEqual(before);
    expect(step).toMatchObject({ changed: true, moved: true, release: false, phasesEnded: [] });
    expect(step.commands).toEqual([
      {
        kind: 'ensure-policy',
        org: 'acme',
        policy: {
          name: PREPARE_FIRST,
          nodes: ['a1', 'a2'],
          version: '2.0.0',
          action: 'download',
          description: `rollout ${stored.id} of strategy two-step v1: prepare group first`,
        },
      },
    ]);
    expect(step.events).toEqual([{ kind: 'group', event: 'started', group: 'first' }]);
    expect(step.record.progress.groups.first).toMatchObject({
      phase: 'preparing',
      sent: { prepare: ['a1', 'a2'] },
    });
    expect(step.record.progress.nodes.a1).toMatchObject({
      group: 'first',
      sentAt: FIXTURE_STARTED.toISOString(),
    });
  });

  it('waits without a look at the phase under way, or with a look at another policy', () => {
    const record = preparing();
    for (const observed of [undefined, seen(DEPLOY_FIRST, [status('a1', 'successful')])]) {
      const step = decideRollout(record, observed, at(1));
      expect(step).toMatchObject({ changed: false, moved: false, commands: [], events: [] });
    }
  });

  it('records each status and answer as it comes, and waits for the rest while the phase has time', () => {
    const step = decideRollout(
      preparing(),
      seen(PREPARE_FIRST, [status('a1', 'downloaded'), status('a2', 'downloading')]),
      at(5),
    );
    expect(step).toMatchObject({ changed: true, moved: false, commands: [], events: [] });
    expect(step.record.progress.nodes.a1).toMatchObject({ state: 'prepared', status: 'downloaded' });
    expect(step.record.progress.nodes.a2).toMatchObject({ state: 'not started', status: 'downloading' });
  });

  it('writes nothing when the statuses are as they were', () => {
    const first = decideRollout(preparing(), seen(PREPARE_FIRST, [status('a2', 'downloading')]), at(5));
    const again = then(first, seen(PREPARE_FIRST, [status('a2', 'downloading')]), 6);
    expect(again).toMatchObject({ changed: false, moved: false, commands: [] });
  });

  it('ends a phase every node answered: its policy removed before the next phase is created', () => {
    const step = decideRollout(
      preparing(),
      seen(PREPARE_FIRST, [status('a1', 'downloaded'), status('a2', 'downloaded')]),
      at(7),
    );
    expect(
      step.commands.map((command) => [command.kind, 'name' in command ? command.name : command.policy.name]),
    ).toEqual([
      ['remove-policy', PREPARE_FIRST],
      ['ensure-policy', DEPLOY_FIRST],
    ]);
    expect(step.commands[1]).toMatchObject({ policy: { action: 'install', nodes: ['a1', 'a2'] } });
    expect(step.events).toEqual([{ kind: 'group', event: 'prepared', group: 'first' }]);
    expect(step.phasesEnded).toEqual([{ phase: 'prepare', seconds: 7 }]);
    expect(step.moved).toBe(true);
  });

  it('fails the nodes without an answer once the phase has run out of time, naming their last status', () => {
    const step = decideRollout(
      preparing(),
      seen(PREPARE_FIRST, [status('a1', 'downloaded'), status('a2', 'downloading')]),
      at(61),
    );
    expect(step.record.progress.nodes.a2).toMatchObject({
      state: 'failure',
      error: 'no outcome within 60 s (last status: downloading)',
    });
    expect(step.record.progress.groups.first).toMatchObject({ phase: 'failed' });
    expect(step.record).toMatchObject({ state: 'failed', reason: 'critical group(s) failed: first, second' });
    expect(step.release).toBe(true);
    expect(step.commands).toEqual([{ kind: 'remove-policy', org: 'acme', name: PREPARE_FIRST }]);
  });

  it("counts a phase's time from when its policy was in place, not from when it was decided", () => {
    const record = preparing();
    const late = decideRollout(
      record,
      seen(PREPARE_FIRST, [status('a2', 'downloading')], { placedAt: at(50) }),
      at(61),
    );
    expect(late.record.progress.nodes.a1!.sentAt).toBe(at(50).toISOString());
    expect(late.record.progress.nodes.a2).toMatchObject({ state: 'not started', status: 'downloading' });
    expect(late.commands).toEqual([]);
    const timedOut = then(
      late,
      seen(PREPARE_FIRST, [status('a2', 'downloading')], { placedAt: at(50) }),
      111,
    );
    expect(timedOut.record.progress.nodes.a1).toMatchObject({
      state: 'failure',
      error: 'no outcome within 60 s (last status: none)',
    });
    expect(timedOut.phasesEnded).toEqual([{ phase: 'prepare', seconds: 61 }]);
  });

  it('fails the nodes at once when the policy is gone', () => {
    const step = decideRollout(preparing(), seen(PREPARE_FIRST, undefined), at(2));
    expect(step.record.progress.nodes.a1).toMatchObject({
      state: 'failure',
      error: `its management policy ${PREPARE_FIRST} was removed before it answered`,
    });
  });

  it('fails the phase the exchange refused, with its reason, and asks nothing more of a policy never in place', () => {
    const step = decideRollout(
      preparing(),
      seen(PREPARE_FIRST, undefined, { refused: 'no agent package of version "2.0.0" is published' }),
      at(2),
    );
    expect(step.record.progress.nodes.a2).toMatchObject({
      state: 'failure',
      error: `the exchange refused its management policy ${PREPARE_FIRST}: no agent package of version "2.0.0" is published`,
    });
    expect(step.record.state).toBe('failed');
    expect(step.commands).toEqual([]);
  });

  it('completes once the last phase ends, giving the nodes back', () => {
    let step = decideRollout(
      preparing(),
      seen(PREPARE_FIRST, [status('a1', 'downloaded'), status('a2', 'downloaded')]),
      at(1),
    );
    step = then(
      step,
      seen(DEPLOY_FIRST, [status('a1', 'successful'), status('a2', 'no-action-required')]),
      2,
    );
    expect(step.commands.map((command) => command.kind)).toEqual(['remove-policy', 'ensure-policy']);
    expect(step.commands[1]).toMatchObject({ policy: { name: PREPARE_SECOND, nodes: ['b1'] } });
    step = then(step, seen(PREPARE_SECOND, [status('b1', 'downloaded')]), 3);
    step = then(step, seen('rollout-0f1e2d3c-1-deploy', [status('b1', 'successful')]), 4);
    expect(step.record).toMatchObject({ state: 'completed', reason: null, finishedAt: at(4) });
    expect(step.events.at(-1)).toEqual({ kind: 'rollout', event: 'completed' });
    expect(step).toMatchObject({ release: true, moved: true });
    expect(step.commands).toEqual([
      { kind: 'remove-policy', org: 'acme', name: 'rollout-0f1e2d3c-1-deploy' },
    ]);
  });

  it('does nothing to a paused rollout, nor to one that has ended', () => {
    for (const state of ['paused', 'completed', 'cancelled'] as const) {
      const record = { ...preparing(), state };
      expect(observedPolicy(record)).toBeUndefined();
      expect(decideRollout(record, undefined, at(1))).toMatchObject({
        changed: false,
        moved: false,
        commands: [],
      });
    }
  });
});

describe('a cancel', () => {
  const cancelling = () => ({ ...preparing(), state: 'cancelling' as const });

  it('pauses the phase under way first, and decides nothing more until that is done', () => {
    const step = decideRollout(cancelling(), seen(PREPARE_FIRST, undefined), at(3));
    expect(step.commands).toEqual([{ kind: 'set-paused', org: 'acme', name: PREPARE_FIRST, paused: true }]);
    expect(step).toMatchObject({ changed: false, moved: true, release: false });
  });

  it('waits while a node is in the middle of a step, keeping what it reported', () => {
    const step = decideRollout(
      cancelling(),
      seen(PREPARE_FIRST, [status('a1', 'downloading'), status('a2', 'paused')], { paused: true }),
      at(3),
    );
    expect(step).toMatchObject({ moved: false, commands: [], changed: true });
    expect(step.record.state).toBe('cancelling');
    expect(step.record.progress.nodes.a1!.status).toBe('downloading');
  });

  it('then removes the policy, keeps the answers, cancels the groups not started and gives the nodes back', () => {
    const step = decideRollout(
      cancelling(),
      seen(PREPARE_FIRST, [status('a1', 'downloaded'), status('a2', 'paused')], { paused: true }),
      at(4),
    );
    expect(step.commands).toEqual([{ kind: 'remove-policy', org: 'acme', name: PREPARE_FIRST }]);
    expect(step.record).toMatchObject({ state: 'cancelled', finishedAt: at(4) });
    expect(step.record.progress.nodes.a1!.state).toBe('prepared');
    expect(step.record.progress.nodes.a2).toEqual(expect.not.objectContaining({ status: expect.anything() }));
    expect(step.record.progress.groups.second).toMatchObject({ phase: 'cancelled' });
    expect(step.events.at(-1)).toEqual({ kind: 'rollout', event: 'cancelled' });
    expect(step.release).toBe(true);
  });

  it('ends at once when nothing was sent', () => {
    const step = decideRollout({ ...fixtureRollout(), state: 'cancelling' }, undefined, at(1));
    expect(step).toMatchObject({ commands: [], release: true, record: { state: 'cancelled' } });
  });
});

describe("an operator's pause and resume", () => {
  it('reach the phase under way at the exchange, and ask nothing before a phase is sent', () => {
    expect(pauseCommands(preparing(), true)).toEqual([
      { kind: 'set-paused', org: 'acme', name: PREPARE_FIRST, paused: true },
    ]);
    expect(pauseCommands(preparing(), false)).toEqual([
      { kind: 'set-paused', org: 'acme', name: PREPARE_FIRST, paused: false },
    ]);
    expect(pauseCommands(fixtureRollout(), true)).toEqual([]);
  });
});
