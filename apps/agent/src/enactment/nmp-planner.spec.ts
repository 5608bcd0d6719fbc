import { type SelectableNode } from '@careen/policy';
import { managementPolicy as policy } from '../testing/agent-state.fixture';
import { type EnactmentRecord } from './enactment-record';
import { NmpPlanner, type PlanInput } from './nmp-planner';

const node: SelectableNode = {
  org: 'acme',
  id: 'edge-1',
  pattern: null,
  policy: { properties: [{ name: 'careen.arch', value: 'amd64' }], constraints: [] },
};
const now = new Date('2026-03-01T12:00:00.000Z');

function input(overrides: Partial<PlanInput>): PlanInput {
  return {
    node,
    policies: [],
    packages: ['1.0.0', '2.0.0', '1.5.0'],
    running: '1.0.0',
    failed: [],
    records: {},
    now,
    ...overrides,
  };
}

describe('NmpPlanner', () => {
  const planner = new NmpPlanner(() => 0.5);

  it('enacts an applicable policy towards the newest package when it says current', () => {
    const plan = planner.plan(input({ policies: [policy('up')] }));
    expect(plan.next).toMatchObject({ nmp: 'up', target: '2.0.0', action: 'install' });
    expect(plan.reports).toEqual([]);
  });

  it('aims at the exact version given, and waits while that version is not published', () => {
    expect(
      planner.plan(input({ policies: [policy('up', {}, { atLeastVersion: '1.5.0' })] })).next?.target,
    ).toBe('1.5.0');
    const unpublished = planner.plan(input({ policies: [policy('up', {}, { atLeastVersion: '3.0.0' })] }));
    expect(unpublished.next).toBeUndefined();
    expect(unpublished.reports).toEqual([]);
  });

  it.each([
    ['disabled', policy('up', { enabled: false })],
    ['not compatible', policy('up', { constraints: ['careen.arch == arm64'] })],
    ['about another node only', policy('up', { constraints: [], nodes: ['edge-2'] })],
    ['without an agent upgrade policy', policy('up', { agentUpgradePolicy: null })],
  ])('ignores a policy that is %s', (_why, nmp) => {
    expect(planner.plan(input({ policies: [nmp] }))).toMatchObject({ next: undefined, reports: [] });
  });

  it('applies to a node listed by id or using a named pattern', () => {
    const patterned = { ...node, pattern: 'gateway' };
    expect(
      planner.plan(input({ policies: [policy('up', { constraints: [], nodes: ['edge-1'] })] })).next,
    ).toBeDefined();
    expect(
      planner.plan(
        input({ node: patterned, policies: [policy('up', { constraints: [], patterns: ['gateway'] })] }),
      ).next,
    ).toBeDefined();
  });

  it('does nothing but say so when the node is already at the version', () => {
    const plan = planner.plan(input({ running: '2.0.0', policies: [policy('up')] }));
    expect(plan.next).toBeUndefined();
    expect(plan.reports).toEqual([{ nmp: 'up', status: 'no-action-required', version: '2.0.0' }]);
    expect(
      planner.plan(input({ running: '2.0.0', policies: [policy('up')], records: plan.records })).reports,
    ).toEqual([]);
  });

  it('leaves a node above the version alone unless the policy allows a downgrade', () => {
    const floor = planner.plan(
      input({ running: '2.0.0', policies: [policy('back', {}, { atLeastVersion: '1.0.0' })] }),
    );
    expect(floor.next).toBeUndefined();
    expect(floor.reports).toEqual([{ nmp: 'back', status: 'no-action-required', version: '1.0.0' }]);

    const exact = planner.plan(
      input({
        running: '2.0.0',
        policies: [policy('back', {}, { atLeastVersion: '1.0.0', allowDowngrade: true })],
      }),
    );
    expect(exact.reports).toEqual([]);
    expect(exact.next).toMatchObject({ nmp: 'back', target: '1.0.0', action: 'install' });
  });

  it('finds nothing to do for a downgrade once the node runs exactly that version', () => {
    const plan = planner.plan(
      input({
        running: '1.0.0',
        policies: [policy('back', {}, { atLeastVersion: '1.0.0', allowDowngrade: true })],
      }),
    );
    expect(plan.next).toBeUndefined();
    expect(plan.reports).toEqual([{ nmp: 'back', status: 'no-action-required', version: '1.0.0' }]);
  });

  it('takes allowing a downgrade as new settings: a node left alone before goes down once it is allowed', () => {
    const floor = policy('back', {}, { atLeastVersion: '1.0.0' });
    const before = planner.plan(input({ running: '2.0.0', policies: [floor] }));
    expect(before.records.back!.status).toBe('no-action-required');
    const allowed = policy(
      'back',
      { lastUpdated: '2026-03-01T11:30:00.000Z' },
      { atLeastVersion: '1.0.0', allowDowngrade: true },
    );
    const after = planner.plan(input({ running: '2.0.0', policies: [allowed], records: before.records }));
    expect(after.records.back!.settings).not.toBe(before.records.back!.settings);
    expect(after.next).toMatchObject({ nmp: 'back', target: '1.0.0' });
    // Without the flag the settings read as they always did: what is done stays done.
    expect(before.records.back!.settings).toBe(JSON.stringify(['1.0.0', 'now', 0, 'install']));
  });

  it('tells a policy that allows a downgrade from one that does not: they conflict', () => {
    const first = planner.plan(
      input({ running: '2.0.0', policies: [policy('back', {}, { atLeastVersion: '1.5.0' })] }),
    );
    const both = planner.plan(
      input({
        running: '2.0.0',
        policies: [
          policy('back', {}, { atLeastVersion: '1.5.0' }),
          policy(
            'down',
            { lastUpdated: '2026-03-01T11:00:00.000Z' },
            { atLeastVersion: '1.5.0', allowDowngrade: true },
          ),
        ],
        records: first.records,
      }),
    );
    expect(both.next).toBeUndefined();
    expect(both.reports).toEqual([expect.objectContaining({ nmp: 'down', status: 'conflict' })]);
  });

  it('picks a uniformly random moment in [start, start + duration) and keeps it', () => {
    const start = '2026-03-01T13:00:00.000Z';
    const at = (random: number) =>
      new NmpPlanner(() => random).plan(input({ policies: [policy('up', {}, { start, duration: 600 })] }))
        .next?.moment;
    expect(at(0)?.toISOString()).toBe(start);
    expect(at(0.5)?.toISOString()).toBe('2026-03-01T13:05:00.000Z');
    expect(at(0.999999)!.getTime()).toBeLessThan(Date.parse(start) + 600_000);

    const first = new NmpPlanner(() => 0.25).plan(
      input({ policies: [policy('up', {}, { start, duration: 600 })] }),
    );
    const again = new NmpPlanner(() => 0.75).plan(
      input({ policies: [policy('up', {}, { start, duration: 600 })], records: first.records }),
    );
    expect(again.next?.moment).toEqual(first.next?.moment);
  });

  it('counts `now` from when the agent first saw the policy', () => {
    const plan = planner.plan(input({ policies: [policy('up', {}, { duration: 60 })] }));
    expect(plan.next?.moment.toISOString()).toBe('2026-03-01T12:00:30.000Z');
  });

  it('records a later conflicting policy as conflict; the one enacted first wins', () => {
    const first = planner.plan(input({ policies: [policy('a', {}, { atLeastVersion: '1.5.0' })] }));
    const records = markStatus(first.records, 'a', 'waiting');
    const later = policy('b', { lastUpdated: '2026-03-01T11:00:00.000Z' }, { atLeastVersion: '2.0.0' });
    const plan = planner.plan(
      input({ policies: [policy('a', {}, { atLeastVersion: '1.5.0' }), later], records }),
    );
    expect(plan.next?.nmp).toBe('a');
    expect(plan.reports).toEqual([
      expect.objectContaining({ nmp: 'b', status: 'conflict', error: expect.stringContaining('"a"') }),
    ]);
  });

  it('lets the newer one win when conflicting policies arrive together', () => {
    const older = policy('older', { lastUpdated: '2026-03-01T09:00:00.000Z' }, { atLeastVersion: '1.5.0' });
    const newer = policy('newer', { lastUpdated: '2026-03-01T11:00:00.000Z' }, { atLeastVersion: '2.0.0' });
    const plan = planner.plan(input({ policies: [older, newer] }));
    expect(plan.next?.nmp).toBe('newer');
    expect(plan.reports).toEqual([expect.objectContaining({ nmp: 'older', status: 'conflict' })]);
  });

  it('takes up a policy left in conflict once the winner is gone', () => {
    const older = policy('older', { lastUpdated: '2026-03-01T09:00:00.000Z' }, { atLeastVersion: '1.5.0' });
    const newer = policy('newer', { lastUpdated: '2026-03-01T11:00:00.000Z' }, { atLeastVersion: '2.0.0' });
    const together = planner.plan(input({ policies: [older, newer] }));
    const plan = planner.plan(input({ policies: [older], records: together.records }));
    expect(plan.next).toMatchObject({ nmp: 'older', target: '1.5.0' });
  });

  it('does not call a policy with the same settings a conflict', () => {
    const plan = planner.plan(input({ policies: [policy('a'), policy('b')] }));
    expect(plan.reports).toEqual([]);
    expect(plan.waiting.map((enactment) => enactment.nmp)).toEqual(['a', 'b']);
  });

  it('never tries a failed version again, but tries a newer one or after a reset', () => {
    const failed = planner.plan(input({ policies: [policy('up')], failed: ['2.0.0'] }));
    expect(failed.next).toBeUndefined();
    expect(failed.reports).toEqual([
      expect.objectContaining({ nmp: 'up', status: 'precheck-failed', version: '2.0.0' }),
    ]);

    const newer = planner.plan(
      input({
        policies: [policy('up')],
        failed: ['2.0.0'],
        packages: ['2.0.0', '2.1.0'],
        records: failed.records,
      }),
    );
    expect(newer.next?.target).toBe('2.1.0');

    const reset = planner.plan(
      input({
        policies: [policy('up')],
        failed: ['2.0.0'],
        records: markStatus(failed.records, 'up', 'reset'),
      }),
    );
    expect(reset.next?.target).toBe('2.0.0');
  });

  it('tries a failed download again after a pause that doubles with each failure, up to half an hour', () => {
    const minutes = (plan: ReturnType<NmpPlanner['plan']>) =>
      (plan.next!.moment.getTime() - now.getTime()) / 60_000;
    let records = planner.plan(input({ policies: [policy('up')] })).records;
    const pauses: number[] = [];
    for (let failure = 0; failure < 7; failure++) {
      const plan = planner.plan(
        input({ policies: [policy('up')], records: markStatus(records, 'up', 'download-failed') }),
      );
      expect(plan.next).toMatchObject({ nmp: 'up', target: '2.0.0' });
      expect(plan.reports).toEqual([]);
      pauses.push(minutes(plan));
      records = plan.records;
    }
    // random() = 0.5: the pause itself, neither shortened nor stretched.
    expect(pauses).toEqual([1, 2, 4, 8, 16, 30, 30]);

    const again = planner.plan(input({ policies: [policy('up')], records }));
    expect(again.next?.moment).toEqual(new Date(records.up!.moment!));
    const newPackage = planner.plan(
      input({
        policies: [policy('up')],
        packages: ['2.0.0', '2.1.0'],
        records: markStatus(records, 'up', 'download-failed'),
      }),
    );
    expect(newPackage.records.up).toMatchObject({ target: '2.1.0', downloadFailures: 0 });
  });

  it('stops after a download-only enactment and follows a new package', () => {
    const download = policy('fetch', {}, { action: 'download' });
    const plan = planner.plan(input({ policies: [download] }));
    expect(plan.next?.action).toBe('download');
    const done = markStatus(plan.records, 'fetch', 'downloaded');
    expect(planner.plan(input({ policies: [download], records: done })).next).toBeUndefined();
    expect(
      planner.plan(input({ policies: [download], records: done, packages: ['3.0.0'] })).next?.target,
    ).toBe('3.0.0');
  });

  it('enacts one policy at a time: the earliest moment first', () => {
    const draws = [0.9, 0.1];
    const drawing = new NmpPlanner(() => draws.shift() ?? 0);
    const plan = drawing.plan(
      input({ policies: [policy('a', {}, { duration: 600 }), policy('b', {}, { duration: 600 })] }),
    );
    expect(plan.next?.nmp).toBe('b');
    expect(plan.waiting.map((enactment) => enactment.nmp)).toEqual(['b', 'a']);
  });

  it('re-enacts a policy that was updated', () => {
    const plan = planner.plan(input({ policies: [policy('up')], running: '2.0.0' }));
    const updated = policy('up', { lastUpdated: '2026-03-01T11:30:00.000Z' }, { atLeastVersion: '1.5.0' });
    const again = planner.plan(input({ policies: [updated], running: '2.0.0', records: plan.records }));
    expect(again.reports).toEqual([
      expect.objectContaining({ nmp: 'up', status: 'no-action-required', version: '1.5.0' }),
    ]);
  });

  it('keeps what is done when the same settings are republished or re-enabled', () => {
    const first = planner.plan(input({ policies: [policy('up')] }));
    const failed = markStatus(first.records, 'up', 'rolled-back');
    const republished = policy('up', { lastUpdated: '2026-03-01T11:30:00.000Z' });
    const again = planner.plan(input({ policies: [republished], failed: ['2.0.0'], records: failed }));
    expect(again).toMatchObject({ next: undefined, reports: [] });
    expect(again.records.up).toMatchObject({ status: 'rolled-back', lastUpdated: republished.lastUpdated });
  });

  it('holds an enactment that has not started while its policy is paused, and says so once', () => {
    const waiting = planner.plan(input({ policies: [policy('up', {}, { duration: 600 })] }));
    const paused = policy('up', { paused: true }, { duration: 600 });
    const plan = planner.plan(
      input({ policies: [paused], records: markStatus(waiting.records, 'up', 'waiting') }),
    );
    expect(plan.next).toBeUndefined();
    expect(plan.reports).toEqual([{ nmp: 'up', status: 'paused', version: '2.0.0' }]);
    expect(planner.plan(input({ policies: [paused], records: plan.records })).reports).toEqual([]);
  });

  it('says a node already at the version needs nothing, paused or not', () => {
    const plan = planner.plan(input({ policies: [policy('up', { paused: true })], running: '2.0.0' }));
    expect(plan.reports).toEqual([{ nmp: 'up', status: 'no-action-required', version: '2.0.0' }]);
  });

  it('spreads the enactments that had not started over the window a resume sets, once', () => {
    const draws = [0.1, 0.5];
    const drawing = new NmpPlanner(() => draws.shift() ?? 0.9);
    const original = drawing.plan(input({ policies: [policy('up', {}, { duration: 600 })] }));
    expect(original.next?.moment.toISOString()).toBe('2026-03-01T12:01:00.000Z');
    const paused = drawing.plan(
      input({ policies: [policy('up', { paused: true }, { duration: 600 })], records: original.records }),
    );
    const resumed = policy(
      'up',
      { resumeWindow: { start: '2026-03-01T13:00:00.000Z', duration: 120 } },
      { duration: 600 },
    );
    const later = new Date('2026-03-01T13:00:00.000Z');
    const plan = drawing.plan(input({ policies: [resumed], records: paused.records, now: later }));
    expect(plan.next?.moment.toISOString()).toBe('2026-03-01T13:01:00.000Z');
    expect(plan.records.up).toMatchObject({ status: null, window: '2026-03-01T13:00:00.000Z' });
    // Seen again, the resume does not draw again.
    const again = drawing.plan(input({ policies: [resumed], records: plan.records, now: later }));
    expect(again.next?.moment.toISOString()).toBe('2026-03-01T13:01:00.000Z');
  });

  it('leaves an enactment that had started alone when its policy resumes', () => {
    const first = planner.plan(input({ policies: [policy('up')] }));
    const resumed = policy('up', { resumeWindow: { start: '2026-03-01T13:00:00.000Z', duration: 120 } });
    const plan = planner.plan(
      input({
        policies: [resumed],
        records: markStatus(first.records, 'up', 'successful'),
        running: '2.0.0',
      }),
    );
    expect(plan).toMatchObject({ next: undefined, reports: [] });
  });

  it('leaves the policy whose upgrade is under way to it', () => {
    const first = planner.plan(input({ policies: [policy('up')] }));
    const plan = planner.plan(
      input({
        policies: [policy('up')],
        failed: ['2.0.0'],
        records: markStatus(first.records, 'up', 'failed'),
        inProgress: 'up',
      }),
    );
    expect(plan).toMatchObject({ next: undefined, reports: [] });
  });

  it('forgets a deleted policy', () => {
    const plan = planner.plan(input({ policies: [policy('up')] }));
    expect(planner.plan(input({ policies: [], records: plan.records })).records).toEqual({});
  });
});

function markStatus(
  records: Record<string, EnactmentRecord>,
  nmp: string,
  status: EnactmentRecord['status'],
): Record<string, EnactmentRecord> {
  return { ...records, [nmp]: { ...records[nmp]!, status } };
}
