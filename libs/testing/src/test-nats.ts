/**
 * A JetStream-enabled nats-server per test file on a free port, or the server named by
 * CAREEN_NATS_URL with every stream removed first (then files must not run in parallel). Asked
 * for authorization, always a server of its own, enforcing decentralized JWT authorization, and
 * a creds file for the services.
 */
import {
  findNatsServer,
  loadOrCreateNatsAuth,
  NATS_SERVER_INSTALL_HINT,
  startNatsServer,
  type NatsAuth,
} from '@careen/devstack';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestNats {
  url: string;
  /** Stops the server (simulating an outage) without deleting its store. */
  stop(): Promise<void>;
  /** With authorization: its keys, and the services' creds file. */
  auth?: NatsAuth & { credsFile: string };
}

export async function startTestNats(options: { auth?: boolean } = {}): Promise<TestNats> {
  const given = process.env.CAREEN_NATS_URL;
  if (given && !options.auth) {
    await deleteAllStreams(given);
    return { url: given, stop: async () => undefined };
  }
  const binary = findNatsServer({ explicitPath: process.env.CAREEN_NATS_SERVER_BIN, path: process.env.PATH });
  if (!binary) throw new Error(NATS_SERVER_INSTALL_HINT);
  const storeDir = mkdtempSync(join(tmpdir(), 'careen-test-nats-'));
  const auth = options.auth ? await loadOrCreateNatsAuth(storeDir) : undefined;
  const server = await startNatsServer({ binary, storeDir, auth });
  return {
    url: server.url,
    auth,
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
