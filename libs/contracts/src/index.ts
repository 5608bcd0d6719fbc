export * from './events/event-definition';
export * from './events/cloud-event';
export * from './streams';
export * from './changes/change.payload';
export * from './errors/domain-error';
export * from './identifiers';
export * from './management/management-status';
export * from './upgrades/upgrade-grant.events';
