import { renderRollout, since } from './rollout-screen';
import { buildRolloutView, EtaEstimator, type WatchedPolicy, type WatchedStatus } from './rollout-view';

const policy: WatchedPolicy = {
  name: 'to-two',
  state: 'active',
  disabledReason: null,
  agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now', duration: 0, action: 'install' },
};
const node = (id: string, haGroup: string | null, version = '1.0.0') => ({
  id,
  haGroup,
  status: { lastHeartbeat: '2026-03-01T11:59:50.000Z', agentVersion: { package: version } },
});
const status = (id: string, value: WatchedStatus['status'], error: string | null = null) => ({
  node: id,
  status: value,
  version: '2.0.0',
  error,
});
const now = new Date('2026-03-01T12:00:00.000Z');

describe('buildRolloutView', () => {
  const nodes = [node('a1', 'g1', '2.0.0'), node('a2', 'g1'), node('b1', 'g2'), node('c1', null)];

  it('groups the nodes it applies to by HA group, the ungrouped last, and counts their statuses in order', () => {
    const view = buildRolloutView(
      policy,
      ['c1', 'b1', 'a2', 'a1'],
      [status('a1', 'successful'), status('a2', 'ha-waiting'), status('b1', 'waiting')],
      nodes,
    );
    expect(view.groups.map((group) => [group.name, group.members.map((member) => member.node)])).toEqual([
      ['g1', ['a1', 'a2']],
      ['g2', ['b1']],
      [null, ['c1']],
    ]);
    expect(view.counts).toEqual([
      ['waiting', 1],
      ['ha-waiting', 1],
      ['successful', 1],
      ['not reported', 1],
    ]);
    expect([view.final, view.total, view.done]).toEqual([1, 4, false]);
  });

  it('shows the nodes left waiting for a package that is not published as no-package, with why', () => {
    const why =
      'no agent package of version "2.0.0" is published, for any arch (it selects nodes of arch amd64)';
    const view = buildRolloutView(policy, ['a1', 'b1'], [status('a1', 'successful')], nodes, {
      missingPackage: why,
      noPackage: ['b1'],
    });
    expect(view.groups[1]!.members[0]).toMatchObject({ node: 'b1', status: 'no-package', error: why });
    expect(view.counts).toEqual([
      ['successful', 1],
      ['no-package', 1],
    ]);
    const screen = renderRollout(view, now, undefined);
    expect(screen).toContain(`no-package: ${why}`);
    expect(screen).toMatch(/g2 +b1 +no-package +1\.0\.0/);
  });

  it('names the member that halts its group, and why', () => {
    const view = buildRolloutView(
      policy,
      ['a1', 'a2'],
      [status('a1', 'rollback-failed', 'disk full'), status('a2', 'ha-waiting')],
      nodes,
    );
    expect(view.groups[0]!.halted).toMatchObject({
      node: 'a1',
      status: 'rollback-failed',
      error: 'disk full',
    });
    const screen = renderRollout(view, now, undefined);
    expect(screen).toContain('halted: HA group g1 waits for a1 (rollback-failed: disk full)');
  });

  it('is done once every node has a final status, failures included', () => {
    const view = buildRolloutView(
      policy,
      ['a1', 'a2'],
      [status('a1', 'successful'), status('a2', 'rolled-back', 'health check failed')],
      nodes,
    );
    expect(view.done).toBe(true);
    expect(renderRollout(view, now, 0)).toContain('2 of 2 nodes done (1 successful, 1 rolled-back); done');
  });

  it('shows the version a successful node reached before its next status report says so', () => {
    const view = buildRolloutView(
      policy,
      ['a2', 'b1'],
      [status('a2', 'successful'), status('b1', 'downloading')],
      [node('a2', 'g1', '1.0.0'), node('b1', 'g2', '1.0.0')],
    );
    const versions = view.groups.flatMap((group) =>
      group.members.map((member) => [member.node, member.version]),
    );
    expect(versions).toEqual([
      ['a2', '2.0.0'],
      ['b1', '1.0.0'],
    ]);
  });

  it('is never done with no nodes to do', () => {
    expect(buildRolloutView(policy, [], [], nodes).done).toBe(false);
  });
});

describe('renderRollout', () => {
  it('shows the state with the reason it was disabled, the ETA, and each node', () => {
    const stopped = {
      ...policy,
      state: 'disabled' as const,
      disabledReason: 'disabled by the exchange: 3 of its nodes failed',
    };
    const view = buildRolloutView(stopped, ['a1'], [status('a1', 'waiting')], [node('a1', 'g1')]);
    const screen = renderRollout(view, now, 95);
    expect(screen.split('\n').slice(0, 2)).toEqual([
      'management policy to-two to 2.0.0: disabled: disabled by the exchange: 3 of its nodes failed',
      '0 of 1 nodes done (1 waiting); ETA 2m',
    ]);
    expect(screen).toMatch(/g1\s+a1\s+waiting\s+1\.0\.0\s+10s ago/);
  });
});

describe('since', () => {
  it('says how long ago, or never', () => {
    expect(since('2026-03-01T11:59:48.000Z', now)).toBe('12s ago');
    expect(since('2026-03-01T11:57:00.000Z', now)).toBe('3m ago');
    expect(since(null, now)).toBe('never');
  });
});

describe('EtaEstimator', () => {
  it('knows nothing until nodes finish, then extrapolates the recent rate', () => {
    const eta = new EtaEstimator(60_000);
    eta.observe(new Date(0), 0);
    expect(eta.secondsLeft(10)).toBeUndefined();
    eta.observe(new Date(10_000), 0);
    expect(eta.secondsLeft(10)).toBeUndefined();
    eta.observe(new Date(20_000), 4);
    expect(eta.secondsLeft(6)).toBe(30);
    expect(eta.secondsLeft(0)).toBe(0);
  });

  it('forgets samples older than its window', () => {
    const eta = new EtaEstimator(10_000);
    eta.observe(new Date(0), 0);
    eta.observe(new Date(5_000), 1);
    eta.observe(new Date(100_000), 1);
    eta.observe(new Date(105_000), 6);
    expect(eta.secondsLeft(5)).toBe(5);
  });
});
