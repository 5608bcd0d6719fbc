/**
 * Puts the service's parts together and runs them: the sessions (any replica takes requests and
 * replies), the driver (only the elected replica), the reply and admin-event consumers, and the
 * requests on the bus: the hub's own and service accounts' (on their org's subjects).
 */
import {
  BASIC_AUTHENTICATOR,
  KEY_AUTHENTICATOR,
  TOKEN_VERIFIER,
  type BasicAuthenticator,
  type KeyAuthenticator,
  type TokenVerifier,
} from '@careen/auth';
import { type BusConnection } from '@careen/bus';
import { OutboxWriter } from '@careen/persistence';
import {
  AuditTrail,
  BUS,
  HubRuntime,
  MetricsRegistry,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type Server } from 'node:http';
import { DataSource } from 'typeorm';
import { listenForAdminEvents } from './bus/admin-listener';
import { answerOrgRequests } from './bus/org-requests';
import { listenForReplies } from './bus/reply-listener';
import { answerSessionRequests } from './bus/session-requests';
import { CommandRunner } from './driver/command-runner';
import { SessionDriver } from './driver/session-driver';
import { ConstraintsStore } from './constraints/constraints.store';
import { MaintenanceMetrics } from './maintenance-metrics';
import { type MaintenanceSessionConfig } from './maintenance-session.config';
import { FleetFacts } from './planning/fleet-facts';
import { SubscriberCheck } from './planning/subscriber-check';
import { MaintenanceSessions } from './sessions/maintenance-sessions';
import { SessionSteps } from './sessions/session-steps';
import { SessionStore } from './sessions/session-store';

@Injectable()
export class MaintenanceRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly sessions: MaintenanceSessions;
  private readonly runtime: HubRuntime;

  constructor(
    @Inject(SERVICE_CONFIG) config: MaintenanceSessionConfig,
    @Inject(SERVICE_LOGGER) logger: JsonLogger,
    @Inject(BUS) bus: BusConnection,
    dataSource: DataSource,
    outbox: OutboxWriter,
    audit: AuditTrail,
    http: HttpAdapterHost,
    metrics: MetricsRegistry,
    @Inject(TOKEN_VERIFIER) verifier: TokenVerifier,
    @Inject(BASIC_AUTHENTICATOR) basic: BasicAuthenticator,
    @Inject(KEY_AUTHENTICATOR) keys: KeyAuthenticator,
    constraints: ConstraintsStore,
  ) {
    this.runtime = new HubRuntime({
      config,
      login: {
        user: config.CAREEN_MAINTENANCE_EXCHANGE_USER,
        password: config.CAREEN_MAINTENANCE_EXCHANGE_PASSWORD,
        passwordSetting: 'CAREEN_MAINTENANCE_EXCHANGE_PASSWORD',
        without: 'sessions can be read but none can be started or driven',
      },
      logger,
      metrics,
    });
    const store = new SessionStore(dataSource);
    // Unset, the URLs name the address this process listens on (right for one host and for tests).
    const publicUrl = () =>
      config.CAREEN_MAINTENANCE_PUBLIC_URL ?? listeningUrl(http.httpAdapter.getHttpServer() as Server);
    const steps = new SessionSteps(dataSource, store, outbox, audit, publicUrl);
    const exchange = this.runtime.exchange;
    const facts = exchange && new FleetFacts(exchange, config.CAREEN_AGBOT_URL);
    const sessions = new MaintenanceSessions({
      store,
      steps,
      facts,
      subscribers: new SubscriberCheck(bus.nc, config.CAREEN_MAINTENANCE_ASSUME_SUBSCRIBED),
      constraints,
      replies: new MaintenanceMetrics(metrics, dataSource),
    });
    this.sessions = sessions;
    this.runtime
      .part(async () => {
        // What a crash kept from the agbot, or what aged out of the stream, is told again.
        logger.info({ groups: await constraints.announceAll() }, 'instance groups told to the agbot');
        return [];
      })
      .part(async () => [
        await listenForReplies(bus, sessions, logger),
        await listenForAdminEvents(bus, sessions, logger),
      ])
      .part(() => answerSessionRequests(bus.nc, sessions, logger))
      .part(() => answerOrgRequests(bus.nc, sessions, { verifier, basic, keys }, logger));
    if (!exchange || !facts) return;
    const driver = new SessionDriver({
      store,
      steps,
      facts,
      exchange,
      runner: new CommandRunner(exchange, store, {
        agbotUrl: config.CAREEN_AGBOT_URL,
        slotLeaseSeconds: config.CAREEN_MAINTENANCE_SLOT_LEASE_SECONDS,
      }),
      tickMs: config.CAREEN_MAINTENANCE_TICK_MS,
      slotLeaseSeconds: config.CAREEN_MAINTENANCE_SLOT_LEASE_SECONDS,
      serveAgainSeconds: config.CAREEN_MAINTENANCE_SERVE_AGAIN_SECONDS,
      logger,
    });
    steps.onStep = () => driver.wake();
    this.runtime.runWhileLeading('careen:maintenance-session:driver', (signal) => driver.run(signal));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.runtime.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.runtime.stop();
  }
}

function listeningUrl(server: Server): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return `http://127.0.0.1:${port}`;
}
