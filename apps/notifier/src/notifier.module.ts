import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { exchangeAuthModule, PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { type NotifierConfig } from './notifier.config';
import { InitNotifier1763769600000 } from './migrations/1763769600000-init-notifier';

export const NOTIFIER_ENTITIES = [OutboxMessageEntity];
export const NOTIFIER_MIGRATIONS = [InitNotifier1763769600000];

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
          streams: [STREAMS.maintenance, STREAMS.deadLetters],
          relayOutbox: true,
        }),
        exchangeAuthModule(config.CAREEN_EXCHANGE_URL),
      ],
    };
  }
}
