/**
 * The web console's files for `npm start` and the browser tests: built with Vite into a folder
 * of their own, again only when a source is newer than the last build. The build runs in a
 * process of its own, so the launcher starts the services meanwhile.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LauncherError } from './launcher-error';
import { REPO_ROOT } from './repo-root';

export const CONSOLE_SOURCES = join(REPO_ROOT, 'apps', 'console', 'web');

export function consoleInstalled(): boolean {
  return existsSync(join(CONSOLE_SOURCES, 'index.html'));
}

/** A build under way (or one found up to date). */
export interface ConsoleBuild {
  /** Settles with the folder to serve once built; fails with Vite's output when the build does. */
  built: Promise<string>;
  /** Ends a build still running (a stop came first); settles once Vite has exited. */
  cancel(): Promise<void>;
}

/** Builds the console into `outDir` unless it holds a build newer than every source. */
export function startConsoleBuild(outDir: string): ConsoleBuild {
  const index = join(outDir, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestSource(CONSOLE_SOURCES))
    return { built: Promise.resolve(outDir), cancel: () => Promise.resolve() };
  const vite = join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const child = spawn(
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
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<string | number | null>((resolve) => {
    child.once('error', (error) => resolve(error.message));
    child.once('close', (code, signal) => resolve(code ?? signal));
  });
  const built = exited.then((status) => {
    if (status !== 0)
      throw new LauncherError(`building the web console failed (vite exited ${status}):\n${stderr}${stdout}`);
    return outDir;
  });
  // Awaited only when the console starts: a failure meanwhile is reported then, not as an
  // unhandled rejection while the services start.
  built.catch(() => undefined);
  return {
    built,
    cancel: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function newestSource(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}
