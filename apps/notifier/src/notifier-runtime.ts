/**
 * Puts the notifier's parts together and runs them on every replica: the fan-out of events into
 * deliveries (shared durable consumers), the deliverers (subscriptions leased with SKIP LOCKED)
 * and the answers to `careen.notifier.subscribed`; and what subscriptions need made: whose a
 * project is (the exchange), and NATS subscribers' consumers and credentials.
 */
import { type BusConnection } from '@careen/bus';
import {
  AuditTrail,
  BUS,
  HubRuntime,
  MetricsRegistry,
  NetworkList,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Deliverer } from './delivery/deliverer';
import { DeliveryStore } from './delivery/delivery-store';
import { fanOutEvents } from './delivery/event-fan-out';
import { type NotifierConfig } from './notifier.config';
import { NotifierMetrics } from './notifier-metrics';
import { NatsAccess } from './subscriptions/nats-access';
import { ProjectOwners } from './subscriptions/project-owners';
import { answerSubscribedQuestions } from './subscriptions/subscribed-responder';
import { SubscriptionStore } from './subscriptions/subscription-store';
import { Subscriptions } from './subscriptions/subscriptions';
import { WebhookTargets } from './subscriptions/webhook-target';

@Injectable()
export class NotifierRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly subscriptions: Subscriptions;
  readonly deliveries: DeliveryStore;
  private readonly runtime: HubRuntime;

  constructor(
    @Inject(SERVICE_CONFIG) config: NotifierConfig,
    @Inject(SERVICE_LOGGER) logger: JsonLogger,
    @Inject(BUS) bus: BusConnection,
    dataSource: DataSource,
    audit: AuditTrail,
    metrics: MetricsRegistry,
  ) {
    // Without the exchange only project subscriptions are refused, and they say why.
    this.runtime = new HubRuntime({
      config,
      login: {
        user: config.CAREEN_NOTIFIER_EXCHANGE_USER,
        password: config.CAREEN_NOTIFIER_EXCHANGE_PASSWORD,
        passwordSetting: 'CAREEN_NOTIFIER_EXCHANGE_PASSWORD',
      },
      logger,
      metrics,
    });
    const store = new SubscriptionStore(dataSource, audit);
    const deliveries = new DeliveryStore(dataSource, audit);
    this.deliveries = deliveries;
    const targets = new WebhookTargets(NetworkList.parse(config.CAREEN_NOTIFIER_ALLOWED_NETWORKS));
    const owners = new ProjectOwners(this.runtime.exchange);
    if (Boolean(config.CAREEN_NOTIFIER_NATS_ACCOUNT) !== Boolean(config.CAREEN_NOTIFIER_NATS_SIGNING_KEY))
      throw new Error(
        'set both CAREEN_NOTIFIER_NATS_ACCOUNT and CAREEN_NOTIFIER_NATS_SIGNING_KEY, or neither',
      );
    const issuer =
      config.CAREEN_NOTIFIER_NATS_ACCOUNT && config.CAREEN_NOTIFIER_NATS_SIGNING_KEY
        ? {
            account: config.CAREEN_NOTIFIER_NATS_ACCOUNT,
            signingKey: config.CAREEN_NOTIFIER_NATS_SIGNING_KEY,
            ttlSeconds: config.CAREEN_NOTIFIER_NATS_CREDENTIALS_SECONDS,
          }
        : undefined;
    this.subscriptions = new Subscriptions(store, targets, owners, new NatsAccess(bus.jsm, issuer));
    const observed = new NotifierMetrics(metrics, dataSource);
    const deliverer = new Deliverer({
      deliveries,
      targets,
      retry: { baseMs: config.CAREEN_NOTIFIER_RETRY_BASE_MS, maxMs: config.CAREEN_NOTIFIER_RETRY_MAX_MS },
      timeoutMs: config.CAREEN_NOTIFIER_WEBHOOK_TIMEOUT_MS,
      pollMs: config.CAREEN_NOTIFIER_POLL_MS,
      observe: (outcome, attempts, lagMs) => observed.observe(outcome, attempts, lagMs),
      logger,
    });
    this.runtime
      .part(() =>
        fanOutEvents({
          bus,
          subscriptions: store,
          deliveries,
          deadlineSeconds: config.CAREEN_NOTIFIER_DELIVERY_DEADLINE_SECONDS,
          owed: () => deliverer.wake(),
          logger,
        }),
      )
      .part(() => answerSubscribedQuestions(bus.nc, store, logger))
      .runOnEveryReplica((signal) => deliverer.run(signal));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.runtime.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.runtime.stop();
  }
}
