import { createLogger } from '@careen/telemetry';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../core/clock';
import { type AgentPackage, type ManagementStatusReport } from '../exchange/exchange.types';
import { agentMemory } from '../testing/agent-state.fixture';
import { buildPackage } from '../testing/agent-package.fixture';
import { PackageVerifier } from './package-verifier';
import { SimulatedInstallStrategy } from './simulated-install.strategy';
import { UpgradeRunner } from './upgrade-runner';

describe('UpgradeRunner: checking the downloaded package', () => {
  let dir: string;
  let file: string;
  let pkg: AgentPackage;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'careen-runner-'));
    const bytes = await buildPackage({ version: '2.0.0' });
    file = join(dir, '2.0.0.tar.gz');
    await writeFile(file, bytes);
    pkg = { version: '2.0.0', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** A runner whose download hands over `downloaded` as the package's file. */
  function runnerFor(downloaded: string, described: AgentPackage = pkg) {
    const statuses: ManagementStatusReport[] = [];
    const discarded: string[] = [];
    const restarts: string[] = [];
    const strategy = new SimulatedInstallStrategy('1.0.0');
    const memory = agentMemory();
    const runner = new UpgradeRunner({
      download: {
        fetch: () => Promise.resolve({ pkg: described, file: downloaded }),
        discard: (version) => Promise.resolve(void discarded.push(version)),
      },
      verifier: new PackageVerifier([]),
      strategy,
      restarter: { restart: () => Promise.resolve(void restarts.push('restart')) },
      memory,
      reporter: {
        management: (_nmp, report) => Promise.resolve(void statuses.push(report)),
        node: () => Promise.resolve(),
      },
      clock: systemClock,
      logger: createLogger('agent', { level: 'fatal' }),
    });
    const upgrade = () =>
      runner.begin(
        { nmp: 'up', lastUpdated: '2026-03-01T10:00:00.000Z', version: '2.0.0', action: 'install' },
        '1.0.0',
        null,
        new AbortController().signal,
      );
    return { upgrade, statuses, discarded, restarts, memory };
  }

  it('installs a package that passes its checks and restarts on it', async () => {
    const { upgrade, statuses, restarts } = runnerFor(file);
    await upgrade();
    expect(statuses.map((report) => report.status)).toEqual(['downloading', 'downloaded', 'initiated']);
    expect(restarts).toEqual(['restart']);
  });

  it('ends in precheck-failed, discards the file and remembers the version when the package is at fault', async () => {
    const { upgrade, statuses, discarded, restarts, memory } = runnerFor(file, {
      ...pkg,
      sha256: '0'.repeat(64),
    });
    await upgrade();
    expect(statuses.at(-1)).toMatchObject({
      status: 'precheck-failed',
      error: expect.stringContaining('sha256 is'),
    });
    expect(discarded).toEqual(['2.0.0']);
    expect(memory.failedVersions).toEqual(['2.0.0']);
    expect(restarts).toEqual([]);
  });

  it('ends in download-failed, to be tried again, when the node cannot read its own copy', async () => {
    const { upgrade, statuses, discarded, restarts, memory } = runnerFor(join(dir, 'unreadable.tar.gz'));
    await upgrade();
    expect(statuses.at(-1)).toMatchObject({
      status: 'download-failed',
      error: expect.stringMatching(/^the downloaded package could not be read: ENOENT/),
    });
    expect(memory.failedVersions).toEqual([]);
    expect(memory.upgrade).toBeUndefined();
    expect(discarded).toEqual([]);
    expect(restarts).toEqual([]);
  });
});
