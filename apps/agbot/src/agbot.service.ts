import { type ServiceDefinition } from '@careen/service';
import { AgbotConfig } from './agbot.config';
import { AGBOT_ENTITIES, AGBOT_MIGRATIONS, AgbotModule } from './agbot.module';

export const agbotService: ServiceDefinition<AgbotConfig> = {
  service: 'agbot',
  description: 'Policy matching, workload placement and HA-group serialization of upgrades',
  configClass: AgbotConfig,
  port: (config) => config.CAREEN_AGBOT_PORT,
  module: (config, logger) => AgbotModule.forRoot(config, logger),
  entities: AGBOT_ENTITIES,
  migrations: AGBOT_MIGRATIONS,
};
