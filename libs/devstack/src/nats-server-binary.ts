/**
 * Finds a nats-server binary: an explicit path, one installed under the local state folder,
 * or one on PATH. Installing one is the launcher's business, not this module's.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const NATS_SERVER_INSTALL_HINT =
  'nats-server was not found. Install it from your OS packages (Debian/Ubuntu: apt-get install nats-server; ' +
  'macOS: brew install nats-server), or download a release from https://github.com/nats-io/nats-server/releases ' +
  'and put it on PATH or point CAREEN_NATS_SERVER_BIN at it.';

export function findNatsServer(
  options: { explicitPath?: string; extraDirs?: string[]; path?: string } = {},
): string | undefined {
  if (options.explicitPath) {
    return isExecutable(options.explicitPath) ? options.explicitPath : undefined;
  }
  const dirs = [
    ...(options.extraDirs ?? []),
    ...(options.path ?? '').split(delimiter),
    '/usr/sbin',
    '/usr/local/sbin',
  ];
  for (const dir of dirs.filter(Boolean)) {
    const candidate = join(dir, 'nats-server');
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
