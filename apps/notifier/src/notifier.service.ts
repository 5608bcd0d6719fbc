import { type ServiceDefinition } from '@careen/service';
import { NotifierConfig } from './notifier.config';
import { NOTIFIER_ENTITIES, NOTIFIER_MIGRATIONS, NotifierModule } from './notifier.module';

export const notifierService: ServiceDefinition<NotifierConfig> = {
  service: 'notifier',
  description: 'Subscriptions and delivery of maintenance events: webhooks, NATS and SSE',
  configClass: NotifierConfig,
  port: (config) => config.CAREEN_NOTIFIER_PORT,
  module: (config, logger) => NotifierModule.forRoot(config, logger),
  entities: NOTIFIER_ENTITIES,
  migrations: NOTIFIER_MIGRATIONS,
};
