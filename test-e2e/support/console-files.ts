/** The console's files, built with Vite as `npm start` builds them, for the browser tests' own console servers. */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..', '..');

/** Builds into `outDir` and answers it; throws with Vite's output when the build fails. */
export function buildConsole(outDir: string): string {
  const vite = join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const config = join(REPO_ROOT, 'apps', 'console', 'web', 'vite.config.mjs');
  const built = spawnSync(
    process.execPath,
    [vite, 'build', '--config', config, '--outDir', outDir, '--logLevel', 'warn'],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) throw new Error(`building the console failed:\n${built.stderr}${built.stdout}`);
  return outDir;
}
