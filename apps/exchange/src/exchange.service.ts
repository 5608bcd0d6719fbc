import { type ServiceDefinition } from '@careen/service';
import { ExchangeConfig } from './exchange.config';
import { EXCHANGE_ENTITIES, EXCHANGE_MIGRATIONS, ExchangeModule } from './exchange.module';

export const exchangeService: ServiceDefinition<ExchangeConfig> = {
  service: 'exchange',
  description: 'Registry and source of truth: orgs, users, credentials and the change feed',
  configClass: ExchangeConfig,
  port: (config) => config.CAREEN_EXCHANGE_PORT,
  module: (config, logger) => ExchangeModule.forRoot(config, logger),
  entities: EXCHANGE_ENTITIES,
  migrations: EXCHANGE_MIGRATIONS,
};
