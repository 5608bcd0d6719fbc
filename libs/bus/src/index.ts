export * from './bus-connection';
export * from './stream-provisioner';
export * from './cloud-event-headers';
export * from './event-publisher';
export * from './message-decoder';
export * from './dead-letter';
export * from './consumer-runner';
export * from './outbox-relay';
