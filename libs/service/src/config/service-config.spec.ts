import { ServiceConfig } from './service-config';
import { loadConfig } from './load-config';

describe('ServiceConfig', () => {
  const base = { CAREEN_DATABASE_URL: 'postgres://x@y/z', CAREEN_NATS_URL: 'nats://n:4222' };

  it('keeps 10 Postgres connections unless CAREEN_DATABASE_POOL_SIZE says otherwise', () => {
    expect(loadConfig(ServiceConfig, base).CAREEN_DATABASE_POOL_SIZE).toBe(10);
    expect(
      loadConfig(ServiceConfig, { ...base, CAREEN_DATABASE_POOL_SIZE: '40' }).CAREEN_DATABASE_POOL_SIZE,
    ).toBe(40);
  });

  it.each(['0', '501', 'many', '2.5'])('stops the service naming CAREEN_DATABASE_POOL_SIZE=%s', (value) => {
    expect(() => loadConfig(ServiceConfig, { ...base, CAREEN_DATABASE_POOL_SIZE: value })).toThrow(
      /CAREEN_DATABASE_POOL_SIZE/,
    );
  });
});
