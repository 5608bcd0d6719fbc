import { createLogger } from '@careen/telemetry';
import { type Clock } from '../core/clock';
import { type ManagementStatusReport, type NodeView } from '../exchange/exchange.types';
import { agentMemory, managementPolicy } from '../testing/agent-state.fixture';
import { PackageVerifier } from '../upgrade/package-verifier';
import { SimulatedInstallStrategy } from '../upgrade/simulated-install.strategy';
import { UpgradeRunner } from '../upgrade/upgrade-runner';
import { Enactor } from './enactor';
import { NmpPlanner } from './nmp-planner';

const start = new Date('2026-03-01T12:00:00.000Z');
const logger = createLogger('agent', { level: 'fatal' });

const node: NodeView = {
  org: 'acme',
  id: 'edge-1',
  name: 'edge-1',
  owner: null,
  pattern: null,
  policy: { properties: [{ name: 'careen.arch', value: 'amd64' }], constraints: [] },
  labels: {},
  tags: [],
  rack: null,
  haGroup: null,
  schedulable: true,
  maintenance: null,
  status: null,
  createdAt: start.toISOString(),
  updatedAt: start.toISOString(),
};

// Drawn at half of its window: the moment 300 s after the policy is taken up.
const policy = managementPolicy('up', {}, { duration: 600 });

/** An agent's enactor on a clock the test moves, reporting to a list. */
function enactorAt() {
  let now = start.getTime();
  const clock: Clock = { now: () => new Date(now), sleep: () => Promise.resolve() };
  const statuses: (ManagementStatusReport & { nmp: string })[] = [];
  const reporter = {
    management: (nmp: string, report: ManagementStatusReport) =>
      Promise.resolve(void statuses.push({ nmp, ...report })),
    node: () => Promise.resolve(),
  };
  const memory = agentMemory({ lastStartedAt: start.toISOString(), policies: { up: policy } });
  const strategy = new SimulatedInstallStrategy('1.0.0');
  const signal = new AbortController().signal;
  const enactor = new Enactor({
    planner: new NmpPlanner(() => 0.5),
    runner: new UpgradeRunner({
      download: {
        fetch: () => Promise.reject(new Error('the exchange is away')),
        discard: () => Promise.resolve(),
      },
      verifier: new PackageVerifier([]),
      strategy,
      restarter: { restart: () => Promise.resolve() },
      memory,
      reporter,
      clock,
      logger,
    }),
    reporter,
    strategy,
    memory,
    clock,
    logger,
    builtinVersion: '1.0.0',
    haGroup: () => null,
    onUpgradeEnd: () => undefined,
    signal,
  });
  const at = async (seconds: number) => {
    now = start.getTime() + seconds * 1000;
    await enactor.enact(node, ['2.0.0']);
    await enactor.settled();
  };
  return { enactor, statuses, at };
}

describe('Enactor', () => {
  it('reports waiting when it takes a policy up, polls no longer than until its moment, then downloads', async () => {
    const { enactor, statuses, at } = enactorAt();
    await at(0);
    expect(statuses).toEqual([
      {
        nmp: 'up',
        status: 'waiting',
        version: '2.0.0',
        fromVersion: '1.0.0',
        startTime: new Date(start.getTime() + 300_000).toISOString(),
      },
    ]);
    expect(enactor.waitSeconds(30)).toBe(30);
    await at(290);
    expect(enactor.waitSeconds(30)).toBe(10);
    expect(statuses).toHaveLength(1);

    await at(300);
    expect(statuses.map((report) => report.status)).toEqual(['waiting', 'downloading', 'download-failed']);
    // The upgrade has ended: nothing is due, and the poll waits its whole time.
    expect(enactor.waitSeconds(30)).toBe(30);
  });
});
