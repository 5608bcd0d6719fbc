/** A private Postgres and JetStream nats-server for one benchmark run, on free ports. */
import {
  findNatsServer,
  NATS_SERVER_INSTALL_HINT,
  startEmbeddedPostgres,
  startNatsServer,
} from '@careen/devstack';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { cpuSeconds, cpuSecondsWithChildren } from './service-process';
import { statementStatsWanted } from './statement-stats';

export interface BenchStack {
  databaseUrl: string;
  natsUrl: string;
  /** CPU seconds its Postgres (all of the server's processes) and its nats-server have used so far. */
  cpuSeconds(): { postgres: number; nats: number };
  stop(): Promise<void>;
}

export async function startBenchStack(options: { postgres: boolean }): Promise<BenchStack> {
  const root = mkdtempSync(join(tmpdir(), 'careen-bench-'));
  chmodSync(root, 0o755);
  const binary = findNatsServer({ explicitPath: process.env.CAREEN_NATS_SERVER_BIN, path: process.env.PATH });
  if (!binary) throw new Error(NATS_SERVER_INSTALL_HINT);
  const nats = await startNatsServer({ binary, storeDir: join(root, 'nats') });
  const postgres = options.postgres
    ? await startEmbeddedPostgres({ dataDir: join(root, 'pg'), statementStats: statementStatsWanted() > 0 })
    : undefined;
  let databaseUrl = '';
  if (postgres) {
    const admin = new Client(postgres.adminUrl);
    await admin.connect();
    await admin.query('CREATE DATABASE bench');
    await admin.end();
    databaseUrl = postgres.urlFor('bench');
  }
  // The server's process id is the first line of its pid file.
  const postmaster = () => Number(readFileSync(join(root, 'pg', 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
  return {
    databaseUrl,
    natsUrl: nats.url,
    cpuSeconds: () => ({
      postgres: postgres ? cpuSecondsWithChildren(postmaster()) : 0,
      nats: cpuSeconds(nats.process.pid!),
    }),
    stop: async () => {
      await nats.stop();
      await postgres?.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
