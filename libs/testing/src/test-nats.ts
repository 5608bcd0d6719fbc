/**
 * A JetStream-enabled nats-server per test file on a free port, or the server named by
 * CAREEN_NATS_URL with every stream removed first (then files must not run in parallel).
 */
import { findNatsServer, NATS_SERVER_INSTALL_HINT, startNatsServer } from '@careen/devstack';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestNats {
  url: string;
  /** Stops the server (simulating an outage) without deleting its store. */
  stop(): Promise<void>;
}

export async function startTestNats(): Promise<TestNats> {
  const given = process.env.CAREEN_NATS_URL;
  if (given) {
    await deleteAllStreams(given);
    return { url: given, stop: async () => undefined };
  }
  const binary = findNatsServer({ explicitPath: process.env.CAREEN_NATS_SERVER_BIN, path: process.env.PATH });
  if (!binary) throw new Error(NATS_SERVER_INSTALL_HINT);
  const storeDir = mkdtempSync(join(tmpdir(), 'careen-test-nats-'));
  const server = await startNatsServer({ binary, storeDir });
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

async function deleteAllStreams(url: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const stream of jsm.streams.list()) await jsm.streams.delete(stream.config.name);
  } finally {
    await nc.close();
  }
}
