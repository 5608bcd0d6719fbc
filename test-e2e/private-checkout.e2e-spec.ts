/**
 * A checkout below a folder only its owner may enter, as root's own home folder is: `npm start`
 * and the test step of `npm test` (jest, whose global setup starts the run's Postgres) still
 * start, and leave that folder's permissions as they were. Under root this is the case that
 * matters: Postgres runs as its own user, who cannot enter the folder, so neither its binaries
 * in node_modules nor a data folder in the checkout are within its reach.
 *
 * The checkout is this one's files hard-linked (node_modules included) into such a folder: the
 * same bytes, reached only through a private path.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  exitOf,
  spawnLauncher,
  stopLauncher,
  untilOutputContains,
  freeLauncherPorts,
} from './support/launcher-process';

const REPO_ROOT = resolve(__dirname, '..');
/** What a checkout has that a test may link: everything but git's and the launcher's own state. */
const NOT_LINKED = new Set(['.git', '.careen', '.nx', 'dist']);

jest.setTimeout(300_000);

describe('a checkout in a folder only its owner may enter', () => {
  let privateFolder: string;
  let checkout: string;
  /** Where the launcher said it keeps Postgres's data, when not in the checkout. */
  let outsideData: string | undefined;

  beforeAll(() => {
    // In the repository's own state folder: hard links need the same file system.
    mkdirSync(join(REPO_ROOT, '.careen'), { recursive: true });
    privateFolder = mkdtempSync(join(REPO_ROOT, '.careen', 'private-'));
    chmodSync(privateFolder, 0o700);
    checkout = join(privateFolder, 'careen');
    mkdirSync(checkout);
    for (const entry of readdirSync(REPO_ROOT)) {
      if (!NOT_LINKED.has(entry)) execFileSync('cp', ['-al', join(REPO_ROOT, entry), checkout]);
    }
  });

  afterAll(() => {
    if (outsideData) rmSync(outsideData, { recursive: true, force: true });
    rmSync(privateFolder, { recursive: true, force: true });
  });

  it("runs npm test's jest step, whose global setup starts the run's Postgres", () => {
    const env = { ...process.env };
    delete env.CAREEN_DATABASE_URL;
    const run = spawnSync(
      process.execPath,
      [join(checkout, 'node_modules', '.bin', 'jest'), 'apps/exchange/src/database-pool-wait.int-spec.ts'],
      { cwd: checkout, env, encoding: 'utf8' },
    );
    expect({ status: run.status, stderr: run.stderr }).toEqual({
      status: 0,
      stderr: expect.stringContaining('Tests:       3 passed, 3 total'),
    });
    expect(statSync(privateFolder).mode & 0o777).toBe(0o700);
  });

  it('runs npm start to ready and stops with exit 0', async () => {
    const env: NodeJS.ProcessEnv = {
      CAREEN_HOME: undefined,
      CAREEN_LOG_LEVEL: 'warn',
      CAREEN_DEMO_NODES: '2',
      CAREEN_DEMO_GROUPS: '1',
    };
    Object.assign(env, await freeLauncherPorts());
    const { child, output } = spawnLauncher([], env, checkout);
    try {
      await untilOutputContains(child, 'Starting Postgres', 120_000, output);
      outsideData = /Starting Postgres on port \d+ with its data in (\S+) /.exec(output())?.[1];
      await untilOutputContains(child, 'Careen is ready.', 240_000, output);
      expect(output()).toContain(outsideData ? `(Postgres data in ${outsideData}:` : 'State       ');
      // Under root the data cannot be in the checkout; otherwise it is, as always.
      if (process.getuid?.() === 0) expect(outsideData).toMatch(/^\/var\/lib\/careen\/postgres-/);
      else expect(outsideData).toBeUndefined();
      expect(existsSync(join(outsideData ?? join(checkout, '.careen', 'postgres'), 'PG_VERSION'))).toBe(true);
      child.kill('SIGTERM');
      expect(await exitOf(child, 60_000)).toEqual({ code: 0, signal: null });
    } finally {
      await stopLauncher(child);
    }
    expect(statSync(privateFolder).mode & 0o777).toBe(0o700);
  });
});
