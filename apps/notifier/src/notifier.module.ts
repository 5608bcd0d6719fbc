import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { type BusConnection } from '@careen/bus';
import { BUS, exchangeAuthModule, PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { DeliveriesController } from './delivery/deliveries.controller';
import { DeliveryStore } from './delivery/delivery-store';
import { InitNotifier1763769600000 } from './migrations/1763769600000-init-notifier';
import { Subscriptions1764200200000 } from './migrations/1764200200000-subscriptions';
import { SubscriptionKinds1764300000000 } from './migrations/1764300000000-subscription-kinds';
import { SubscriptionLeases1764300100000 } from './migrations/1764300100000-subscription-leases';
import { DeliveryEventSequence1764400000000 } from './migrations/1764400000000-delivery-event-sequence';
import { SubscriptionEventNames1765000000000 } from './migrations/1765000000000-subscription-event-names';
import { type NotifierConfig } from './notifier.config';
import { NotifierRuntime } from './notifier-runtime';
import { ProjectEventStream } from './stream/project-event-stream';
import { StreamController } from './stream/stream.controller';
import { Subscriptions } from './subscriptions/subscriptions';
import { SubscriptionsController } from './subscriptions/subscriptions.controller';

export const NOTIFIER_ENTITIES = [OutboxMessageEntity];
export const NOTIFIER_MIGRATIONS = [
  InitNotifier1763769600000,
  Subscriptions1764200200000,
  SubscriptionKinds1764300000000,
  SubscriptionLeases1764300100000,
  DeliveryEventSequence1764400000000,
  SubscriptionEventNames1765000000000,
];

@Module({})
export class NotifierModule {
  static forRoot(config: NotifierConfig, logger: JsonLogger): DynamicModule {
    return {
      module: NotifierModule,
      imports: [
        PlatformModule.forRoot({
          logger,
          service: 'notifier',
          config,
          entities: NOTIFIER_ENTITIES,
          migrations: NOTIFIER_MIGRATIONS,
          streams: [STREAMS.maintenance, STREAMS.deadLetters, STREAMS.audit],
          relayOutbox: true,
        }),
        exchangeAuthModule(config.CAREEN_EXCHANGE_URL),
      ],
      controllers: [SubscriptionsController, DeliveriesController, StreamController],
      providers: [
        NotifierRuntime,
        {
          provide: Subscriptions,
          inject: [NotifierRuntime],
          useFactory: (runtime: NotifierRuntime) => runtime.subscriptions,
        },
        {
          provide: ProjectEventStream,
          inject: [BUS],
          useFactory: (bus: BusConnection) => new ProjectEventStream(bus),
        },
        {
          provide: DeliveryStore,
          inject: [NotifierRuntime],
          useFactory: (runtime: NotifierRuntime) => runtime.deliveries,
        },
      ],
    };
  }
}
