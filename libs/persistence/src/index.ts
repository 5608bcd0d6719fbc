export * from './service-data-source';
export * from './run-migrations';
export * from './entity-from-row';
export * from './outbox/outbox-message.entity';
export * from './outbox/outbox-schema.sql';
export * from './outbox/outbox-writer';
export * from './inbox/processed-messages';
export * from './leader/leader-election';
