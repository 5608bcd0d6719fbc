/**
 * Provides a nats-server binary: an explicit one, one in the state folder's bin/, one on PATH,
 * or, when running as root on a Debian-like system, the distribution's `nats-server` package.
 * Nothing is downloaded from anywhere else.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { findNatsServer, NATS_SERVER_INSTALL_HINT } from '@careen/devstack';
import { LauncherError } from './launcher-error';

export function ensureNatsServer(binDir: string, env: NodeJS.ProcessEnv): string {
  const explicitPath = env.CAREEN_NATS_SERVER_BIN;
  const find = () => findNatsServer({ explicitPath, extraDirs: [binDir], path: env.PATH });
  const found = find();
  if (found) return found;
  if (explicitPath)
    throw new LauncherError(`CAREEN_NATS_SERVER_BIN=${explicitPath} is not an executable file.`);
  const aptGet = process.getuid?.() === 0 ? findOnPath('apt-get', env.PATH) : undefined;
  if (!aptGet) throw new LauncherError(NATS_SERVER_INSTALL_HINT);
  installWithApt(aptGet, env);
  const installed = find();
  if (!installed)
    throw new LauncherError(
      `apt-get installed nats-server, yet it is not on PATH. ${NATS_SERVER_INSTALL_HINT}`,
    );
  return installed;
}

function installWithApt(aptGet: string, env: NodeJS.ProcessEnv): void {
  process.stdout.write('nats-server is missing; installing the Debian package "nats-server" with apt-get.\n');
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', 'nats-server']]) {
    const result = spawnSync(aptGet, args, { stdio: 'inherit', env: aptEnv });
    if (result.status !== 0) {
      throw new LauncherError(
        `"apt-get ${args.join(' ')}" failed (exit ${result.status ?? result.signal}). ${NATS_SERVER_INSTALL_HINT}`,
      );
    }
  }
}

function findOnPath(command: string, path: string | undefined): string | undefined {
  for (const dir of [...(path ?? '').split(delimiter), '/usr/bin', '/usr/sbin'].filter(Boolean)) {
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}
