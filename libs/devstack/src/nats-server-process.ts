/** Runs a JetStream-enabled nats-server as a child process, for the launcher and the test harness. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port';
import { natsAuthConfig, type NatsAuth } from './nats-auth';
import { waitForPort } from './wait-for-port';

export interface NatsServerOptions {
  binary: string;
  storeDir: string;
  port?: number;
  /** Where the server's own log goes; by default it is discarded. */
  logFile?: string;
  /** Decentralized JWT authorization to enforce; without it, any client may connect. */
  auth?: NatsAuth;
  /** A member of a JetStream cluster (see nats-cluster.ts). */
  cluster?: ClusterMembership;
  /** An HTTP monitoring port (`/healthz`, `/jsz`). */
  monitorPort?: number;
}

export interface ClusterMembership {
  name: string;
  /** This server's name, unique in the cluster. */
  serverName: string;
  /** The port this server takes routes on. */
  port: number;
  /** Every member's route port, this one's included. */
  routes: number[];
  /**
   * Keep the members' own addresses from clients, so that a client reaches the cluster only by
   * the URLs it was given (a test's fault-injecting proxies, say).
   */
  noAdvertise?: boolean;
}

export interface RunningNatsServer {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startNatsServer(options: NatsServerOptions): Promise<RunningNatsServer> {
  const port = options.port ?? (await freePort());
  mkdirSync(options.storeDir, { recursive: true });
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', options.storeDir];
  // The pid file lets an operator (or a test) stop or kill this one server, e.g. a cluster member.
  args.push('-P', join(options.storeDir, 'nats-server.pid'));
  if (options.logFile) args.push('-l', options.logFile);
  if (options.monitorPort) args.push('-m', String(options.monitorPort));
  if (options.cluster) {
    const { name, serverName, port: routePort, routes } = options.cluster;
    args.push('-n', serverName, '--cluster_name', name, '--cluster', `nats://127.0.0.1:${routePort}`);
    args.push('--routes', routes.map((each) => `nats://127.0.0.1:${each}`).join(','));
    if (options.cluster.noAdvertise) args.push('--no_advertise=true');
  }
  if (options.auth) {
    const configFile = join(options.storeDir, 'auth.conf');
    writeFileSync(configFile, natsAuthConfig(options.auth, join(options.storeDir, 'jwt')), { mode: 0o600 });
    args.push('-c', configFile);
  }
  const child = spawn(options.binary, args, { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  // A binary that cannot be run at all (ENOENT, EACCES) never exits: it fails to start.
  child.once('error', () => (exited = true));
  await waitForPort(port, { isAlive: () => !exited });
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    process: child,
    stop: () => stopChild(child),
  };
}

/** SIGTERM, then SIGKILL if the child has not exited within the grace period. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
