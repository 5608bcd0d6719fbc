import { type PolicyStatus } from '../fleet/fleet-gateway';
import { decideUpgrade, type UpgradeObservation } from './upgrade-decision';
import { upgradeRecord } from '../testing/upgrade-fixture';
import { type UpgradeRecord } from './upgrade-store';

const CREATED = new Date('2026-12-01T00:00:00.000Z');
const at = (seconds: number) => new Date(CREATED.getTime() + seconds * 1000);
const TIMEOUT = 600;
const POLICY = 'upgrade-6a7b8c9d-mon01';

const upgrade = (overrides: Partial<UpgradeRecord> = {}): UpgradeRecord =>
  upgradeRecord('6a7b8c9d-0000-4000-8000-000000000001', CREATED, overrides);

const started = (overrides: Partial<UpgradeRecord> = {}) => upgrade({ started_at: at(1), ...overrides });
const reported = (value: string, error: string | null = null): PolicyStatus[] => [
  { node: 'mon01', status: value, version: null, error },
];
const exchange = (
  statuses: PolicyStatus[] | undefined,
  running: string | null = null,
): UpgradeObservation => ({
  paused: false,
  exchange: { statuses, running },
});
const REMOVAL = { kind: 'remove-policy', org: 'acme', name: POLICY };

describe('a single-node upgrade step', () => {
  it('sends a new upgrade as its own policy, from the location given, changing nothing yet', () => {
    const step = decideUpgrade(
      upgrade({ location: 'http://mirror/agent.tgz' }),
      { paused: false },
      at(0),
      TIMEOUT,
    );
    expect(step).toEqual({
      commands: [
        {
          kind: 'ensure-policy',
          org: 'acme',
          policy: {
            name: POLICY,
            nodes: ['mon01'],
            version: '2.0.0',
            action: 'install',
            description: 'upgrade 6a7b8c9d-0000-4000-8000-000000000001 of node mon01 to 2.0.0 (tarball)',
            location: 'http://mirror/agent.tgz',
          },
        },
      ],
      release: false,
      moved: true,
    });
  });

  it('starts once its policy is in place, from that moment', () => {
    const step = decideUpgrade(upgrade(), { paused: false, placedAt: at(3) }, at(4), TIMEOUT);
    expect(step).toEqual({ change: { started_at: at(3) }, commands: [], release: false, moved: true });
  });

  it('ends one the exchange refused as failed, saying why, and gives its node back', () => {
    const step = decideUpgrade(upgrade(), { paused: false, refused: 'no package' }, at(4), TIMEOUT);
    expect(step).toEqual({
      change: {
        state: 'failed',
        status: null,
        error: 'the exchange refused it: no package',
        finished_at: at(4),
      },
      commands: [REMOVAL],
      release: true,
      moved: true,
    });
  });

  it('follows the status its agent reports, and writes nothing when it is as before', () => {
    const step = decideUpgrade(started(), exchange(reported('downloading')), at(5), TIMEOUT);
    expect(step).toEqual({
      change: { state: 'downloading', status: 'downloading', error: null },
      commands: [],
      release: false,
      moved: false,
    });
    const same = decideUpgrade(
      started({ state: 'downloading', status: 'downloading' }),
      exchange(reported('downloading')),
      at(6),
      TIMEOUT,
    );
    expect(same).toEqual({ commands: [], release: false, moved: false });
  });

  it('decides nothing of a started upgrade without a look at the exchange', () => {
    expect(decideUpgrade(started(), { paused: false }, at(5), TIMEOUT)).toEqual({
      commands: [],
      release: false,
      moved: false,
    });
  });

  it('ends a success once the node runs the asked version, giving the node back and removing the policy', () => {
    const step = decideUpgrade(started(), exchange(reported('successful'), '2.0.0'), at(9), TIMEOUT);
    expect(step).toEqual({
      change: { state: 'success', status: 'successful', error: null, finished_at: at(9) },
      commands: [REMOVAL],
      release: true,
      moved: true,
    });
  });

  it("waits for the node's own report after a successful install", () => {
    const step = decideUpgrade(started(), exchange(reported('successful'), '1.0.0'), at(9), TIMEOUT);
    expect(step.change).toEqual({ state: 'installing', status: 'successful', error: null });
    expect(step.release).toBe(false);
  });

  it('ends a rollback with the error the agent gave', () => {
    const step = decideUpgrade(
      started(),
      exchange(reported('rolled-back', 'install failed')),
      at(9),
      TIMEOUT,
    );
    expect(step.change).toEqual({
      state: 'rolled-back',
      status: 'rolled-back',
      error: 'install failed',
      finished_at: at(9),
    });
  });

  it('fails one without an outcome in time, naming the last status', () => {
    const step = decideUpgrade(
      started({ state: 'downloading', status: 'downloading' }),
      exchange(reported('downloading')),
      at(1 + TIMEOUT + 1),
      TIMEOUT,
    );
    expect(step.change).toMatchObject({
      state: 'failed',
      error: `no outcome within ${TIMEOUT} s (last status: downloading)`,
    });
    expect(step.release).toBe(true);
  });

  it('fails one whose policy is gone before the node answered', () => {
    const step = decideUpgrade(started(), exchange(undefined), at(5), TIMEOUT);
    expect(step.change).toMatchObject({
      state: 'failed',
      error: `its management policy ${POLICY} was removed before the node answered`,
    });
  });

  it('asks for the removal of an ended upgrade left without one, and keeps when it was carried out', () => {
    const ended = started({ state: 'success', finished_at: at(9) });
    expect(decideUpgrade(ended, { paused: false }, at(10), TIMEOUT)).toEqual({
      commands: [REMOVAL],
      release: false,
      moved: true,
    });
    expect(decideUpgrade(ended, { paused: false, removedAt: at(10) }, at(11), TIMEOUT)).toEqual({
      change: { policy_removed_at: at(10) },
      commands: [],
      release: false,
      moved: true,
    });
  });
});
