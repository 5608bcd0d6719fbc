import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { exchangeAuthModule, PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { type AgbotConfig } from './agbot.config';
import { InitAgbot1763769600000 } from './migrations/1763769600000-init-agbot';

export const AGBOT_ENTITIES = [OutboxMessageEntity];
export const AGBOT_MIGRATIONS = [InitAgbot1763769600000];

@Module({})
export class AgbotModule {
  static forRoot(config: AgbotConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AgbotModule,
      imports: [
        PlatformModule.forRoot({
          logger,
          service: 'agbot',
          config,
          entities: AGBOT_ENTITIES,
          migrations: AGBOT_MIGRATIONS,
          streams: [STREAMS.changes, STREAMS.deadLetters],
          relayOutbox: true,
        }),
        exchangeAuthModule(config.CAREEN_EXCHANGE_URL),
      ],
    };
  }
}
