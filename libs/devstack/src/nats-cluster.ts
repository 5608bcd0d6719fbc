/**
 * A JetStream cluster of nats-server processes on loopback, routed to each other: what the
 * test harness (CAREEN_NATS_CLUSTER=1) and `npm start -- --cluster` run, so that streams are
 * kept at three replicas with a leader that can be lost.
 */
import { join } from 'node:path';
import { freePort } from './free-port';
import { type NatsAuth } from './nats-auth';
import { startNatsServer, type RunningNatsServer } from './nats-server-process';

export interface NatsClusterOptions {
  binary: string;
  /** Each member keeps its store in `<storeDir>/<server name>`. */
  storeDir: string;
  /** Members (3 unless said otherwise). */
  size?: number;
  /** Client ports, one per member; free ones when not given. */
  ports?: number[];
  /** Each member logs to `<logDir>/<server name>.log`; by default logs are discarded. */
  logDir?: string;
  auth?: NatsAuth;
  /** How long the cluster may take to elect its JetStream meta leader. */
  readyTimeoutMs?: number;
  /** Keep the members' addresses from clients: they reach the cluster only by the URLs they were given. */
  noAdvertise?: boolean;
}

export interface RunningNatsCluster {
  /** Every member's client URL, comma-separated, as services take CAREEN_NATS_URL. */
  url: string;
  members: ClusterMember[];
  /** Replicas a stream should have here: one per member, at most JetStream's five. */
  replicas: number;
  /**
   * Starts a member again (one that was killed, say) on its store, ports and routes, and waits
   * until it is healthy; `members` then holds the new process.
   */
  restart(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterMember extends RunningNatsServer {
  /** Its server name, as JetStream names stream leaders and replicas. */
  name: string;
  /** Its HTTP monitoring port (`/healthz`, `/jsz`). */
  monitorPort: number;
}

export const CLUSTER_NAME = 'careen';

interface MemberPlace {
  serverName: string;
  /** Undefined when the caller gave fewer client ports than members. */
  clientPort: number | undefined;
  routePort: number;
  monitorPort: number;
}

export async function startNatsCluster(options: NatsClusterOptions): Promise<RunningNatsCluster> {
  const size = options.size ?? 3;
  // Each member's name and ports, kept for a restart on the same ones.
  const places: MemberPlace[] = await Promise.all(
    Array.from({ length: size }, async (_, index) => ({
      serverName: `${CLUSTER_NAME}-${index + 1}`,
      clientPort: options.ports ? options.ports[index] : await freePort(),
      routePort: await freePort(),
      monitorPort: await freePort(),
    })),
  );
  const routePorts = places.map((place) => place.routePort);
  const startMember = ({
    serverName,
    clientPort,
    routePort,
    monitorPort,
  }: MemberPlace): Promise<ClusterMember> =>
    startNatsServer({
      binary: options.binary,
      storeDir: join(options.storeDir, serverName),
      port: clientPort,
      logFile: options.logDir && join(options.logDir, `${serverName}.log`),
      auth: options.auth,
      monitorPort,
      cluster: {
        name: CLUSTER_NAME,
        serverName,
        port: routePort,
        routes: routePorts,
        noAdvertise: options.noAdvertise,
      },
    }).then((server) => ({ ...server, name: serverName, monitorPort }));
  const members = await Promise.all(places.map(startMember));
  const stop = async () => {
    await Promise.all(members.map((member) => member.stop()));
  };
  try {
    await Promise.all(
      places.map((place) => jetStreamReady(place.monitorPort, options.readyTimeoutMs ?? 30_000)),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: members.map((member) => member.url).join(','),
    members,
    replicas: Math.min(size, 5),
    restart: async (name) => {
      const index = members.findIndex((member) => member.name === name);
      const member = members[index];
      const place = places[index];
      if (!member || !place) throw new Error(`no cluster member is named ${name}`);
      await member.stop();
      members[index] = await startMember(place);
      await jetStreamReady(place.monitorPort, options.readyTimeoutMs ?? 30_000);
    },
    stop,
  };
}

/** Waits until the member's /healthz says JetStream is up with a meta leader. */
async function jetStreamReady(monitorPort: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${monitorPort}/healthz`);
      if (response.ok) return;
      last = await response.text();
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the NATS cluster member on monitor port ${monitorPort} was not healthy in time: ${last}`);
}
