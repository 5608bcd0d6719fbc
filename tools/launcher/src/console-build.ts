/**
 * The web console's files for `npm start` and the browser tests: built with Vite into a folder
 * of their own, again only when a source is newer than the last build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LauncherError } from './launcher-error';
import { REPO_ROOT } from './repo-root';

export const CONSOLE_SOURCES = join(REPO_ROOT, 'apps', 'console', 'web');

export function consoleInstalled(): boolean {
  return existsSync(join(CONSOLE_SOURCES, 'index.html'));
}

/** Builds the console into `outDir` unless it holds a build newer than every source; answers `outDir`. */
export function buildConsole(outDir: string): string {
  const built = join(outDir, 'index.html');
  if (existsSync(built) && statSync(built).mtimeMs >= newestSource(CONSOLE_SOURCES)) return outDir;
  const vite = join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(
    process.execPath,
    [
      vite,
      'build',
      '--config',
      join(CONSOLE_SOURCES, 'vite.config.mjs'),
      '--outDir',
      outDir,
      '--logLevel',
      'warn',
    ],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  if (result.status !== 0)
    throw new LauncherError(
      `building the web console failed (vite exited ${result.status ?? result.signal}):\n${result.stderr}${result.stdout}`,
    );
  return outDir;
}

function newestSource(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}
