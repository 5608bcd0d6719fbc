import { type ServiceDefinition } from '@careen/service';
import { NotifierConfig } from './notifier.config';
import { NOTIFIER_ENTITIES, NOTIFIER_MIGRATIONS, NotifierModule } from './notifier.module';

export const notifierService: ServiceDefinition<NotifierConfig> = {
  service: 'notifier',
  description:
    'Will hold subscriptions and deliver maintenance events (webhooks, NATS, SSE). Today it only boots: health, readiness, metrics and whoami.',
  configClass: NotifierConfig,
  port: (config) => config.CAREEN_NOTIFIER_PORT,
  module: (config, logger) => NotifierModule.forRoot(config, logger),
  entities: NOTIFIER_ENTITIES,
  migrations: NOTIFIER_MIGRATIONS,
};
