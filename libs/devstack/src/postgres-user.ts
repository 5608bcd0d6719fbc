/**
 * Who an embedded Postgres runs as. Postgres refuses to run as root, so under root it runs as
 * the `postgres` user (created when missing), which then needs its own way to the binaries and
 * the data folder: a checkout below a private home folder gives it none.
 */
import { spawnSync } from 'node:child_process';

export interface PosixIds {
  uid: number;
  gid: number;
}

const POSTGRES_USER = 'postgres';

/** The ids the cluster runs as under root, or undefined when it runs as the caller. */
export function postgresRunAs(): PosixIds | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return idsOf(POSTGRES_USER) ?? createPostgresUser();
}

/** Whether `ids` may enter (search) `folder`: every folder on the way must let them through. */
export function reachableBy(ids: PosixIds | undefined, folder: string): boolean {
  if (!ids) return true;
  return spawnSync('test', ['-x', folder], { uid: ids.uid, gid: ids.gid, stdio: 'ignore' }).status === 0;
}

function idsOf(user: string): PosixIds | undefined {
  const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function createPostgresUser(): PosixIds {
  const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', POSTGRES_USER], {
    encoding: 'utf8',
  });
  const ids = idsOf(POSTGRES_USER);
  if (!ids) {
    const why = made.error?.message ?? made.stderr.trim();
    throw new Error(
      `Postgres cannot run as root and there is no "${POSTGRES_USER}" user to run it as; creating one failed: ${why}`,
    );
  }
  return ids;
}
