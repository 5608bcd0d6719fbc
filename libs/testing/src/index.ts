export * from './test-env';
export * from './test-database';
export * from './test-nats';
export * from './test-infra';
export * from './eventually';
export * from './http-client';
export * from './stream-reader';
export * from './in-memory-tracing';
