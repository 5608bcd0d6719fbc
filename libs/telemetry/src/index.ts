/** Public surface of @careen/telemetry: tracing start-up, bus trace propagation and JSON logs. */
export * from './start-telemetry';
export * from './bus-propagation';
export * from './logger';
export * from './nest-json-logger';
