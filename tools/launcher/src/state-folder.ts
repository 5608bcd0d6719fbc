/**
 * The launcher's local state: Postgres and NATS data, logs, generated credentials and an
 * optional nats-server binary. `.careen/` under the repository root unless CAREEN_HOME says
 * otherwise.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './repo-root';

export interface StateFolder {
  root: string;
  postgres: string;
  nats: string;
  logs: string;
  /** A nats-server placed here is found before one on PATH; --reset keeps it. */
  bin: string;
  credentials: string;
  /** The web console as built for this checkout. */
  console: string;
}

export function stateFolder(env: NodeJS.ProcessEnv): StateFolder {
  const root = env.CAREEN_HOME ? resolve(env.CAREEN_HOME) : join(REPO_ROOT, '.careen');
  return {
    root,
    postgres: join(root, 'postgres'),
    nats: join(root, 'nats'),
    logs: join(root, 'logs'),
    bin: join(root, 'bin'),
    credentials: join(root, 'credentials.json'),
    console: join(root, 'console'),
  };
}

/**
 * Removes what the launcher created, and nothing else: CAREEN_HOME may point at a folder that
 * holds other files too. Returns the paths removed.
 */
export function resetStateFolder(folder: StateFolder): string[] {
  const ours = [folder.postgres, folder.nats, folder.logs, folder.credentials].filter((path) =>
    existsSync(path),
  );
  for (const path of ours) rmSync(path, { recursive: true, force: true });
  return ours;
}

export function prepareStateFolder(folder: StateFolder): void {
  mkdirSync(folder.root, { recursive: true });
  mkdirSync(folder.logs, { recursive: true });
}
