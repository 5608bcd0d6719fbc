/**
 * The launcher's local state: Postgres and NATS data, logs, generated credentials and an
 * optional nats-server binary. `.careen/` under the repository root unless CAREEN_HOME says
 * otherwise.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { postgresRunAs, reachableBy } from '@careen/devstack';
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
    postgres: postgresDataFolder(root),
    nats: join(root, 'nats'),
    logs: join(root, 'logs'),
    bin: join(root, 'bin'),
    credentials: join(root, 'credentials.json'),
    console: join(root, 'console'),
  };
}

/** Where Postgres keeps data for the root of folders that only root may enter. */
const SYSTEM_DATA_ROOT = '/var/lib/careen';

/**
 * The cluster's data folder: in the state folder, unless Postgres runs as a user who cannot reach
 * it (root's checkout in a private home folder, whose permissions are the user's to keep): then in
 * a folder of its own under /var/lib/careen, named after the state folder.
 */
function postgresDataFolder(root: string): string {
  const runAs = postgresRunAs();
  if (reachableBy(runAs, nearestExisting(root))) return join(root, 'postgres');
  const id = createHash('sha256').update(root).digest('hex').slice(0, 12);
  return join(SYSTEM_DATA_ROOT, `postgres-${id}`);
}

/** The folder itself, or the closest of its parents that exists (it is made with default modes). */
function nearestExisting(folder: string): string {
  let found = folder;
  while (!existsSync(found) && dirname(found) !== found) found = dirname(found);
  return found;
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
