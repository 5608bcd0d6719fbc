/**
 * Puts the notifier's parts together and runs them on every replica: the fan-out of events into
 * deliveries (shared durable consumers), the deliverers (subscriptions leased with SKIP LOCKED)
 * and the answers to `careen.notifier.subscribed`; and what subscriptions need made: whose a
 * project is (the exchange), and NATS subscribers' consumers and credentials.
 */
import { type BusConnection, type RunningConsumer } from '@careen/bus';
import {
  BUS,
  ExchangeClient,
  exchangeCredentials,
  MetricsRegistry,
  NetworkList,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type Subscription as NatsSubscription } from '@nats-io/transport-node';
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
  private readonly store: SubscriptionStore;
  private readonly deliverer: Deliverer;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private consumers: RunningConsumer[] = [];
  private responder: NatsSubscription | undefined;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: NotifierConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    @Inject(BUS) private readonly bus: BusConnection,
    dataSource: DataSource,
    metrics: MetricsRegistry,
  ) {
    this.store = new SubscriptionStore(dataSource);
    this.deliveries = new DeliveryStore(dataSource);
    const targets = new WebhookTargets(NetworkList.parse(config.CAREEN_NOTIFIER_ALLOWED_NETWORKS));
    const credentials = exchangeCredentials(
      config.CAREEN_NOTIFIER_EXCHANGE_USER,
      config.CAREEN_NOTIFIER_EXCHANGE_PASSWORD,
    );
    const owners = new ProjectOwners(
      credentials && new ExchangeClient(config.CAREEN_EXCHANGE_URL, credentials),
    );
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
    this.subscriptions = new Subscriptions(this.store, targets, owners, new NatsAccess(bus.jsm, issuer));
    const observed = new NotifierMetrics(metrics, dataSource);
    this.deliverer = new Deliverer({
      deliveries: this.deliveries,
      targets,
      retry: { baseMs: config.CAREEN_NOTIFIER_RETRY_BASE_MS, maxMs: config.CAREEN_NOTIFIER_RETRY_MAX_MS },
      timeoutMs: config.CAREEN_NOTIFIER_WEBHOOK_TIMEOUT_MS,
      pollMs: config.CAREEN_NOTIFIER_POLL_MS,
      observe: (outcome, attempts, lagMs) => observed.observe(outcome, attempts, lagMs),
      logger,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.consumers = await fanOutEvents({
      bus: this.bus,
      subscriptions: this.store,
      deliveries: this.deliveries,
      deadlineSeconds: this.config.CAREEN_NOTIFIER_DELIVERY_DEADLINE_SECONDS,
      owed: () => this.deliverer.wake(),
      logger: this.logger,
    });
    this.responder = answerSubscribedQuestions(this.bus.nc, this.store, this.logger);
    this.running = this.deliverer.run(this.stopping.signal);
  }

  async onApplicationShutdown(): Promise<void> {
    this.responder?.unsubscribe();
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    this.stopping.abort();
    await this.running;
  }
}
