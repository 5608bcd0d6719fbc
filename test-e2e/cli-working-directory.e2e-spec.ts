/**
 * `careen` run from the operator's own folder, as its own process: through the command on
 * PATH (the launcher) and through `npm run careen` in the checkout, a relative `--file`, `--out`
 * or strategy file is the caller's, never the repository's. Nothing here needs a service.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = resolve(__dirname, '..');
const CAREEN = join(REPO_ROOT, 'tools', 'launcher', 'careen.js');
const STRATEGY = 'name: edge\ngroups:\n  - {name: all, critical: true, depends_on: [], selectors: []}\n';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> =>
  promisify(execFile)(file, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, CAREEN_CONFIG_DIR: join(cwd, 'config'), ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (failure: { code: number; stdout: string; stderr: string }) => ({
      code: failure.code,
      stdout: failure.stdout,
      stderr: failure.stderr,
    }),
  );

describe("careen in the caller's working directory", () => {
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-cwd-'));
    await writeFile(join(workDir, 'strategy.yaml'), STRATEGY);
    for (const folder of ['packages', 'ssl', 'config'])
      await mkdir(join(workDir, 'agent', folder), { recursive: true });
  });

  afterAll(() => rm(workDir, { recursive: true, force: true }));

  it('reads a relative strategy file from the folder it is run in', async () => {
    const validated = await run(process.execPath, [CAREEN, 'strategy', 'validate', 'strategy.yaml'], workDir);
    expect(validated).toEqual({
      code: 0,
      stdout: expect.stringContaining('strategy.yaml: strategy "edge" is valid'),
      stderr: '',
    });
  });

  it('writes a relative --out file into the folder it is run in', async () => {
    const built = await run(
      process.execPath,
      [CAREEN, 'agentpackage', 'new', 'agent', '--package-version', '1.0.0', '--out', 'agent.tar.gz'],
      workDir,
    );
    expect(built).toMatchObject({ code: 0, stderr: '' });
    expect((await stat(join(workDir, 'agent.tar.gz'))).size).toBeGreaterThan(0);
  });

  it('reads paths relative to the folder `npm run careen` is run from', async () => {
    const validated = await run(
      'npm',
      ['run', '--silent', '--prefix', REPO_ROOT, 'careen', '--', 'strategy', 'validate', 'strategy.yaml'],
      workDir,
    );
    expect(validated).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('strategy.yaml: strategy "edge" is valid'),
    });
  });
});
