import { CliError } from '../cli-errors';
import { rolloutChangeLines } from './change-lines';
import { groupsWaitingForAnOperator, waitsForPackage } from './rollout-halt';
import {
  buildRolloutView,
  type WatchedPackage,
  type WatchedPolicy,
  type WatchedStatus,
} from './rollout-view';
import { type WatchedLook, watchLive } from './watch-live';

const policy: WatchedPolicy = {
  name: 'to-two',
  state: 'active',
  disabledReason: null,
  agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 0, action: 'install' },
};
const node = (id: string, haGroup: string | null) => ({
  id,
  haGroup,
  status: { lastHeartbeat: '2026-03-01T11:59:50.000Z', agentVersion: { package: '1.0.0' } },
});
const status = (id: string, value: WatchedStatus['status'], error: string | null = null) => ({
  node: id,
  status: value,
  version: '2.0.0',
  error,
});
const nodes = [node('a1', 'g1'), node('a2', 'g1'), node('b1', 'g2'), node('c1', null)];
const viewOf = (statuses: WatchedStatus[], applies = ['a1', 'a2', 'b1', 'c1'], state = policy.state) =>
  buildRolloutView({ ...policy, state }, applies, statuses, nodes);

describe('waitsForPackage', () => {
  const gone: WatchedPackage = {
    missingPackage: 'no agent package of version "2.0.0" is published',
    noPackage: ['a2', 'c1'],
  };
  const withPackage = (statuses: WatchedStatus[], pkg = gone) =>
    buildRolloutView(policy, ['a1', 'a2', 'b1', 'c1'], statuses, nodes, pkg);

  it('is true once every node not done waits for the missing package', () => {
    expect(waitsForPackage(withPackage([status('a1', 'successful'), status('b1', 'successful')]))).toBe(true);
  });

  it('is false while another node can still move, or when the package is there', () => {
    expect(waitsForPackage(withPackage([status('a1', 'successful'), status('b1', 'initiated')]))).toBe(false);
    expect(
      waitsForPackage(
        withPackage([status('a1', 'successful'), status('b1', 'successful')], {
          missingPackage: null,
          noPackage: [],
        }),
      ),
    ).toBe(false);
  });
});

describe('groupsWaitingForAnOperator', () => {
  const broken = status('a1', 'rollback-failed', 'health check failed');

  it('names the halted group once every node not done waits behind it', () => {
    const view = viewOf([
      broken,
      status('a2', 'ha-waiting'),
      status('b1', 'successful'),
      status('c1', 'successful'),
    ]);
    expect(groupsWaitingForAnOperator(view)).toEqual([
      { name: 'g1', halted: expect.objectContaining({ node: 'a1', status: 'rollback-failed' }) },
    ]);
  });

  it('waits on while a node elsewhere, or a member under way, can still move', () => {
    expect(
      groupsWaitingForAnOperator(viewOf([broken, status('a2', 'ha-waiting'), status('b1', 'initiated')])),
    ).toEqual([]);
    expect(
      groupsWaitingForAnOperator(
        viewOf([broken, status('a2', 'initiated'), status('b1', 'successful'), status('c1', 'successful')]),
      ),
    ).toEqual([]);
  });

  it('does not call a member that may still roll back, a done rollout or a stopped policy a halt for good', () => {
    expect(
      groupsWaitingForAnOperator(
        viewOf([status('a1', 'rolling-back'), status('a2', 'ha-waiting')], ['a1', 'a2']),
      ),
    ).toEqual([]);
    expect(groupsWaitingForAnOperator(viewOf([broken, status('a2', 'successful')], ['a1', 'a2']))).toEqual(
      [],
    );
    expect(
      groupsWaitingForAnOperator(viewOf([broken, status('a2', 'ha-waiting')], ['a1', 'a2'], 'disabled')),
    ).toEqual([]);
  });
});

describe('rolloutChangeLines', () => {
  it('states the rollout one fact a line, with nothing that changes with time alone', () => {
    expect(
      rolloutChangeLines(
        viewOf([status('a1', 'rollback-failed', 'boom'), status('a2', 'ha-waiting')], ['a1', 'a2']),
      ),
    ).toEqual([
      'management policy to-two to 2.0.0: active',
      '1 of 2 nodes done (1 ha-waiting, 1 rollback-failed)',
      'halted: HA group g1 waits for a1 (rollback-failed: boom)',
      'node a1 (HA group g1): rollback-failed at 1.0.0: boom',
      'node a2 (HA group g1): ha-waiting at 1.0.0',
    ]);
  });
});

describe('watchLive', () => {
  const watch = async (looks: WatchedLook[], isTTY = false) => {
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: { write: (chunk: string) => (stdout += chunk), isTTY },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {},
    };
    const next = [...looks];
    const error = await watchLive(io, 'table', 0.001, () => Promise.resolve(next.shift()!)).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    return { stdout, stderr, error };
  };
  const look = (lines: string[], outcome: WatchedLook['outcome'] = 'running'): WatchedLook => ({
    screen: `${lines.join('\n')}\n(redrawn at ${Math.random()})\n`,
    lines,
    value: {},
    outcome,
  });

  it('appends only the lines that changed when stdout is not a terminal', async () => {
    const { stdout } = await watch([
      look(['policy p: active', 'node a: waiting', 'node b: waiting']),
      look(['policy p: active', 'node a: waiting', 'node b: waiting']),
      look(['policy p: active', 'node a: initiated', 'node b: waiting']),
      look(['policy p: active', 'node a: successful', 'node b: successful'], 'done'),
    ]);
    expect(stdout).toBe(
      'policy p: active\nnode a: waiting\nnode b: waiting\nnode a: initiated\nnode a: successful\nnode b: successful\n',
    );
  });

  it('redraws the whole screen on a terminal', async () => {
    const { stdout } = await watch([look(['a']), look(['a'], 'done')], true);
    expect(stdout.match(/\(redrawn at/g)).toHaveLength(2);
  });

  it('ends with the outcome error after printing what changed', async () => {
    const halted = new CliError('waits for an operator', [], 3);
    const { stdout, error } = await watch([
      look(['node a: waiting']),
      look(['node a: rollback-failed'], halted),
    ]);
    expect(stdout).toBe('node a: waiting\nnode a: rollback-failed\n');
    expect(error).toBe(halted);
  });
});
