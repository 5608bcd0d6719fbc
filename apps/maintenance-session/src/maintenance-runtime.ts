/**
 * Puts the service's parts together and runs them: the sessions (any replica takes requests and
 * replies), the driver (only the elected replica), the reply and admin-event consumers and the
 * bus's session requests.
 */
import { type BusConnection, type RunningConsumer } from '@careen/bus';
import { LeaderElection, OutboxWriter } from '@careen/persistence';
import {
  BUS,
  ExchangeClient,
  exchangeCredentials,
  MetricsRegistry,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type Server } from 'node:http';
import { type Subscription } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import { listenForAdminEvents } from './bus/admin-listener';
import { listenForReplies } from './bus/reply-listener';
import { answerSessionRequests } from './bus/session-requests';
import { CommandRunner } from './driver/command-runner';
import { SessionDriver } from './driver/session-driver';
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
  private readonly driver: SessionDriver | undefined;
  private readonly election: LeaderElection | undefined;
  private consumers: RunningConsumer[] = [];
  private requests: Subscription | undefined;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: MaintenanceSessionConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    @Inject(BUS) private readonly bus: BusConnection,
    dataSource: DataSource,
    outbox: OutboxWriter,
    http: HttpAdapterHost,
    metrics: MetricsRegistry,
  ) {
    const store = new SessionStore(dataSource);
    // Unset, the URLs name the address this process listens on (right for one host and for tests).
    const publicUrl = () =>
      config.CAREEN_MAINTENANCE_PUBLIC_URL ?? listeningUrl(http.httpAdapter.getHttpServer() as Server);
    const steps = new SessionSteps(dataSource, store, outbox, publicUrl);
    const credentials = exchangeCredentials(
      config.CAREEN_MAINTENANCE_EXCHANGE_USER,
      config.CAREEN_MAINTENANCE_EXCHANGE_PASSWORD,
    );
    const exchange = credentials && new ExchangeClient(config.CAREEN_EXCHANGE_URL, credentials);
    const facts = exchange && new FleetFacts(exchange, config.CAREEN_AGBOT_URL);
    this.sessions = new MaintenanceSessions({
      store,
      steps,
      facts,
      subscribers: new SubscriberCheck(bus.nc, config.CAREEN_MAINTENANCE_ASSUME_SUBSCRIBED),
      replies: new MaintenanceMetrics(metrics, dataSource),
    });
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
      logger,
    });
    steps.onStep = () => driver.wake();
    this.driver = driver;
    this.election = new LeaderElection({
      databaseUrl: config.CAREEN_DATABASE_URL,
      key: 'careen:maintenance-session:driver',
      logger,
      lead: (signal) => driver.run(signal),
    });
    metrics.trackLeadership(this.election);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.driver)
      this.logger.warn(
        { variable: 'CAREEN_MAINTENANCE_EXCHANGE_PASSWORD' },
        'no exchange credentials: sessions can be read but none can be started or driven',
      );
    this.consumers = [
      await listenForReplies(this.bus, this.sessions, this.logger),
      await listenForAdminEvents(this.bus, this.sessions, this.logger),
    ];
    this.requests = answerSessionRequests(this.bus.nc, this.sessions, this.logger);
    this.election?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.requests?.unsubscribe();
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    await this.election?.stop();
  }
}

function listeningUrl(server: Server): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return `http://127.0.0.1:${port}`;
}
