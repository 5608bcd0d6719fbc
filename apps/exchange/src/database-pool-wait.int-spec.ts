/**
 * A request that cannot have a database connection within CAREEN_DATABASE_POOL_WAIT_MS is
 * answered 503 with Retry-After and does nothing: its client, trying again once connections are
 * free, finds its write done once, never also by the request it gave up on. Meanwhile the
 * exchange still calls itself ready: Postgres answers, only its pool is busy.
 */
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, holdAConnection, http, useTestInfra } from '@careen/testing';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from './exchange.config';
import { exchangeService } from './exchange.service';

const root = basic('root', 'root', 'root-password-1');
const POOL_SIZE = 2;

describe('an exchange whose database connections all stay in use', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const call = (method: string, path: string, body?: unknown) =>
    http(exchange.url, method, path, { auth: root, body });

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
      CAREEN_DATABASE_POOL_SIZE: String(POOL_SIZE),
      CAREEN_DATABASE_POOL_WAIT_MS: '300',
    });
  });

  afterAll(() => exchange.close());

  /** Runs `fn` while every connection of the exchange's pool is held by an open transaction. */
  const whilePoolHeld = async <T>(fn: () => Promise<T>): Promise<T> => {
    const dataSource = exchange.app.get(DataSource);
    const held = [];
    try {
      for (let i = 0; i < POOL_SIZE; i++) held.push(await holdAConnection(dataSource));
      return await fn();
    } finally {
      for (const connection of held) await connection.free();
    }
  };

  it('answers 503 with Retry-After once the wait runs out, having written nothing', async () => {
    const refused = await whilePoolHeld(() => call('POST', '/v1/orgs', { id: 'late' }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.message).toBe(
      'every database connection stayed in use while the request waited; try again shortly',
    );

    expect((await call('GET', '/v1/orgs/late')).status).toBe(404);
    expect((await call('POST', '/v1/orgs', { id: 'late' })).status).toBe(201);
  });

  it('still answers ready, its readiness asking Postgres on a connection of its own', async () => {
    const ready = await whilePoolHeld(() => http(exchange.url, 'GET', '/readyz'));
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', bus: 'ok' } });
  });

  it('refuses to start with a wait under 100 ms, naming the variable', async () => {
    await expect(
      startServiceInProcess(exchangeService, infra, {
        CAREEN_ROOT_PASSWORD: 'root-password-1',
        CAREEN_DATABASE_POOL_WAIT_MS: '5',
      }),
    ).rejects.toThrow(/CAREEN_DATABASE_POOL_WAIT_MS/);
  });
});
