export * from './free-port';
export * from './wait-for-port';
export * from './nats-server-binary';
export * from './nats-server-process';
export * from './nats-cluster';
export * from './nats-auth';
export * from './embedded-postgres-server';
