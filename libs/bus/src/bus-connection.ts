/**
 * The service's NATS connection: reconnects forever with jitter, logs status changes, and
 * drains on close so in-flight acks and publishes finish before shutdown.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { readFileSync } from 'node:fs';
import { BusStats } from './bus-stats';

export interface BusLogger {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

export interface BusConnection {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** What this connection's durable consumers did, for the service's metrics. */
  readonly stats: BusStats;
  isConnected(): boolean;
  close(): Promise<void>;
}

export interface ConnectBusOptions {
  url: string;
  /** Connection name shown by the server, e.g. `exchange`. */
  name: string;
  logger?: BusLogger;
  /** A NATS creds file (user JWT and seed), for a server that enforces JWT authorization. */
  credsFile?: string;
  /** Where replies to this connection's requests arrive (a user may be limited to it). */
  inboxPrefix?: string;
}

export async function connectBus(options: ConnectBusOptions): Promise<BusConnection> {
  const nc = await connect({
    servers: options.url.split(','),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    reconnectJitter: 500,
    pingInterval: 20_000,
    // Otherwise every request, and so every JetStream publish, captures a stack trace up front
    // for the error it seldom has (an Error per event relayed, seen in the agbot's profile).
    noAsyncTraces: true,
    ...(options.credsFile && { authenticator: credsAuthenticator(readFileSync(options.credsFile)) }),
    ...(options.inboxPrefix && { inboxPrefix: options.inboxPrefix }),
  });
  void logStatus(nc, options.logger);
  const jsm = await jetstreamManager(nc);
  return {
    nc,
    js: jetstream(nc),
    jsm,
    stats: new BusStats(),
    isConnected: () => !nc.isClosed() && !nc.isDraining() && connectedNow(nc),
    close: async () => {
      if (nc.isClosed()) return;
      // Draining needs the server; when it is already gone, just close.
      await nc.drain().catch(() => nc.close());
    },
  };
}

const disconnected = new WeakSet<NatsConnection>();

function connectedNow(nc: NatsConnection): boolean {
  return !disconnected.has(nc);
}

async function logStatus(nc: NatsConnection, logger: BusLogger | undefined): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === 'disconnect') {
      disconnected.add(nc);
      logger?.warn({ server: status.server }, 'bus disconnected; reconnecting');
    } else if (status.type === 'reconnect') {
      disconnected.delete(nc);
      logger?.info({ server: status.server }, 'bus reconnected');
    } else if (status.type === 'error') {
      logger?.error({ err: String(status.error) }, 'bus error');
    }
  }
}
