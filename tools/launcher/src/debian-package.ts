/**
 * Commands the launcher needs from the operating system: found on PATH, or, when running as
 * root on a Debian-like system, installed from the distribution's package with apt-get.
 * Nothing is downloaded from anywhere else.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { LauncherError } from './launcher-error';

/** Installs `debianPackage` with apt-get, or throws `hint` where that cannot be done. */
export function installDebianPackage(
  command: string,
  debianPackage: string,
  hint: string,
  env: NodeJS.ProcessEnv,
): void {
  const aptGet = process.getuid?.() === 0 ? findOnPath('apt-get', env.PATH) : undefined;
  if (!aptGet) throw new LauncherError(hint);
  process.stdout.write(
    `${command} is missing; installing the Debian package "${debianPackage}" with apt-get.\n`,
  );
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', debianPackage]]) {
    const result = spawnSync(aptGet, args, { stdio: 'inherit', env: aptEnv });
    if (result.status !== 0) {
      throw new LauncherError(
        `"apt-get ${args.join(' ')}" failed (exit ${result.status ?? result.signal}). ${hint}`,
      );
    }
  }
}

/** `command` on PATH, installed from `debianPackage` when missing; its path. */
export function ensureCommand(
  command: string,
  debianPackage: string,
  hint: string,
  env: NodeJS.ProcessEnv,
): string {
  const found = findOnPath(command, env.PATH);
  if (found) return found;
  installDebianPackage(command, debianPackage, hint, env);
  const installed = findOnPath(command, env.PATH);
  if (!installed)
    throw new LauncherError(`apt-get installed ${debianPackage}, yet ${command} is not on PATH. ${hint}`);
  return installed;
}

export function findOnPath(command: string, path: string | undefined): string | undefined {
  for (const dir of [...(path ?? '').split(delimiter), '/usr/bin', '/usr/sbin'].filter(Boolean)) {
    const candidate = join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
