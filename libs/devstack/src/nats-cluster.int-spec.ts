/**
 * The three-node JetStream cluster the harness and `npm start -- --cluster` run: a stream at
 * three replicas keeps what it acknowledged, and takes writes again, when its leader is killed.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNatsServer, NATS_SERVER_INSTALL_HINT } from './nats-server-binary';
import { startNatsCluster, type RunningNatsCluster } from './nats-cluster';

describe('a three-node JetStream cluster', () => {
  const storeDir = mkdtempSync(join(tmpdir(), 'careen-cluster-'));
  let cluster: RunningNatsCluster;

  beforeAll(async () => {
    const binary = findNatsServer({
      explicitPath: process.env.CAREEN_NATS_SERVER_BIN,
      path: process.env.PATH,
    });
    if (!binary) throw new Error(NATS_SERVER_INSTALL_HINT);
    cluster = await startNatsCluster({ binary, storeDir });
  });

  afterAll(async () => {
    await cluster?.stop();
    rmSync(storeDir, { recursive: true, force: true });
  });

  it('keeps a replicated stream writable and whole when its leader is killed', async () => {
    expect(cluster.url.split(',')).toHaveLength(3);
    expect(cluster.replicas).toBe(3);
    const nc = await connect({ servers: cluster.url.split(','), reconnectTimeWait: 100 });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'CLUSTERED', subjects: ['clustered.>'], num_replicas: 3 });
      const js = jetstream(nc);
      await js.publish('clustered.before', 'acknowledged before the loss');
      const { cluster: placement } = await jsm.streams.info('CLUSTERED');
      expect(placement?.replicas).toHaveLength(2);

      const leader = cluster.members.find((member) => member.name === placement!.leader)!;
      leader.process.kill('SIGKILL');
      // A new leader is elected among the two left; writes are refused until then.
      while (
        !(await js.publish('clustered.after', 'written after the loss').then(
          () => true,
          () => false,
        ))
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      const info = await jsm.streams.info('CLUSTERED');
      expect(info.cluster?.leader).not.toBe(leader.name);
      expect(info.state.messages).toBe(2);
    } finally {
      await nc.close();
    }
  });
});
