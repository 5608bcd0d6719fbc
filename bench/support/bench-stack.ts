/** A private Postgres and JetStream nats-server for one benchmark run, on free ports. */
import {
  findNatsServer,
  NATS_SERVER_INSTALL_HINT,
  startEmbeddedPostgres,
  startNatsServer,
} from '@careen/devstack';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export interface BenchStack {
  databaseUrl: string;
  natsUrl: string;
  stop(): Promise<void>;
}

export async function startBenchStack(options: { postgres: boolean }): Promise<BenchStack> {
  const root = mkdtempSync(join(tmpdir(), 'careen-bench-'));
  chmodSync(root, 0o755);
  const binary = findNatsServer({ explicitPath: process.env.CAREEN_NATS_SERVER_BIN, path: process.env.PATH });
  if (!binary) throw new Error(NATS_SERVER_INSTALL_HINT);
  const nats = await startNatsServer({ binary, storeDir: join(root, 'nats') });
  const postgres = options.postgres ? await startEmbeddedPostgres({ dataDir: join(root, 'pg') }) : undefined;
  let databaseUrl = '';
  if (postgres) {
    const admin = new Client(postgres.adminUrl);
    await admin.connect();
    await admin.query('CREATE DATABASE bench');
    await admin.end();
    databaseUrl = postgres.urlFor('bench');
  }
  return {
    databaseUrl,
    natsUrl: nats.url,
    stop: async () => {
      await nats.stop();
      await postgres?.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
