/**
 * A JetStream-enabled nats-server per test file on a free port — with CAREEN_NATS_CLUSTER=1, a
 * three-node JetStream cluster instead, whose streams the services keep at three replicas — or
 * the server named by CAREEN_NATS_URL with every stream removed first (then files must not run
 * in parallel). Asked for authorization, always servers of its own, enforcing decentralized JWT
 * authorization, and a creds file for the services.
 */
import {
  findNatsServer,
  loadOrCreateNatsAuth,
  NATS_SERVER_INSTALL_HINT,
  startNatsCluster,
  startNatsServer,
  type StoredNatsAuth,
} from '@careen/devstack';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestNats {
  /** One URL, or on a cluster every member's, comma-separated (as CAREEN_NATS_URL takes them). */
  url: string;
  /** Replicas for the streams services create here: 1, or 3 on a cluster. */
  replicas: number;
  /** Stops the server (simulating an outage) without deleting its store. */
  stop(): Promise<void>;
  /** With authorization: its keys, and the services' creds file. */
  auth?: StoredNatsAuth;
}

export async function startTestNats(options: { auth?: boolean } = {}): Promise<TestNats> {
  const given = process.env.CAREEN_NATS_URL;
  if (given && !options.auth) {
    await deleteAllStreams(given);
    return { url: given, replicas: 1, stop: async () => undefined };
  }
  const binary = findNatsServer({ explicitPath: process.env.CAREEN_NATS_SERVER_BIN, path: process.env.PATH });
  if (!binary) throw new Error(NATS_SERVER_INSTALL_HINT);
  const storeDir = mkdtempSync(join(tmpdir(), 'careen-test-nats-'));
  const auth = options.auth ? await loadOrCreateNatsAuth(storeDir) : undefined;
  const server =
    process.env.CAREEN_NATS_CLUSTER === '1'
      ? await startNatsCluster({ binary, storeDir, auth })
      : { ...(await startNatsServer({ binary, storeDir, auth })), replicas: 1 };
  return {
    url: server.url,
    replicas: server.replicas,
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
