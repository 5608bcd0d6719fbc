/**
 * `npm start -- --cluster`: NATS as a three-node JetStream cluster, every service's stream at
 * three replicas, and the platform carrying on when a member is killed, its stream leader
 * included: a change written afterwards still reaches the stream.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as connectNats, credsAuthenticator } from '@nats-io/transport-node';
import { STREAMS } from '@careen/contracts';
import { freePort, HUB_SERVICES } from '@careen/devstack';
import { eventually } from '@careen/testing';
import { type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  exitOf,
  freePortRun,
  spawnLauncher,
  stopLauncher,
  untilOutputContains,
  launcherHome,
} from './support/launcher-process';

const ROOT_PASSWORD = 'cluster-root-password';

jest.setTimeout(240_000);

describe('npm start -- --cluster', () => {
  let home: string;
  let launcher: ChildProcess | undefined;
  const env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    home = launcherHome('launcher-cluster');
    const taken: number[] = [];
    for (const envVar of [
      'CAREEN_PG_PORT',
      'CAREEN_CONSOLE_PORT',
      ...HUB_SERVICES.map((service) => service.portEnv),
    ]) {
      taken.push(await freePort());
      env[envVar] = String(taken[taken.length - 1]);
    }
    env.CAREEN_NATS_PORT = String(await freePortRun(3, taken));
  });

  afterAll(async () => {
    await stopLauncher(launcher);
    rmSync(home, { recursive: true, force: true });
  });

  it('keeps every stream at three replicas and carries on when a member is killed', async () => {
    const { child, output } = spawnLauncher(['--cluster'], {
      ...env,
      CAREEN_HOME: home,
      CAREEN_LOG_LEVEL: 'warn',
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_DEMO_NODES: '0',
    });
    launcher = child;
    await untilOutputContains(child, 'Careen is ready.', 180_000, output);

    const natsPort = Number(env.CAREEN_NATS_PORT);
    const servers = [0, 1, 2].map((offset) => `nats://127.0.0.1:${natsPort + offset}`);
    expect(output()).toContain(`NATS        ${servers.join(',')} (JetStream`);
    const nc = await connectNats({
      servers,
      authenticator: credsAuthenticator(readFileSync(join(home, 'nats', 'services.creds'))),
    });
    try {
      const jsm = await jetstreamManager(nc);
      const changes = async () => jsm.streams.info(STREAMS.changes.name);
      for (const stream of Object.values(STREAMS)) {
        const info = await jsm.streams.info(stream.name);
        expect([stream.name, info.config.num_replicas, info.cluster?.replicas?.length]).toEqual([
          stream.name,
          3,
          2,
        ]);
      }

      // Kill the member that leads the change stream; the exchange's next change still gets there.
      const { cluster, state } = await changes();
      const leader = cluster!.leader!;
      const pid = readFileSync(join(home, 'nats', 'cluster', leader, 'nats-server.pid'), 'utf8');
      process.kill(Number(pid), 'SIGKILL');
      await untilOutputContains(child, `NATS cluster member ${leader} was killed by SIGKILL`, 30_000, output);

      const created = await fetch(`http://127.0.0.1:${env.CAREEN_EXCHANGE_PORT}/v1/orgs`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`root/root:${ROOT_PASSWORD}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ id: 'after-the-loss' }),
      });
      expect(created.status).toBe(201);
      await eventually(
        async () => {
          // Until a new leader is elected, asking about the stream times out.
          const info = await changes();
          expect(info.cluster?.leader).not.toBe(leader);
          expect(info.state.last_seq).toBeGreaterThan(state.last_seq);
          const last = await jsm.streams.getMessage(STREAMS.changes.name, { seq: info.state.last_seq });
          expect(last?.subject).toMatch(/^careen\.changes\.after-the-loss\./);
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
    } finally {
      await nc.close();
    }

    child.kill('SIGTERM');
    expect(await exitOf(child, 60_000)).toEqual({ code: 0, signal: null });
  });
});
