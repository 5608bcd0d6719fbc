import { type ServiceDefinition } from '@careen/service';
import { NotifierConfig } from './notifier.config';
import { NOTIFIER_ENTITIES, NOTIFIER_MIGRATIONS, NotifierModule } from './notifier.module';

export const notifierService: ServiceDefinition<NotifierConfig> = {
  service: 'notifier',
  description:
    'Holds subscriptions to maintenance events and delivers them as signed webhooks (CloudEvents or AODH), in order per subscription, retried and dead-lettered; tells the maintenance service which projects have a subscriber.',
  configClass: NotifierConfig,
  port: (config) => config.CAREEN_NOTIFIER_PORT,
  module: (config, logger) => NotifierModule.forRoot(config, logger),
  entities: NOTIFIER_ENTITIES,
  migrations: NOTIFIER_MIGRATIONS,
};
