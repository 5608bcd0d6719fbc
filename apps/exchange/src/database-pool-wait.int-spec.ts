/**
 * A request that cannot have a database connection within CAREEN_DATABASE_POOL_WAIT_MS is
 * answered 503 with Retry-After and does nothing: its client, trying again once connections are
 * free, finds its write done once, never also by the request it gave up on.
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

  it('answers 503 with Retry-After once the wait runs out, having written nothing', async () => {
    const dataSource = exchange.app.get(DataSource);
    const held = [];
    for (let i = 0; i < POOL_SIZE; i++) held.push(await holdAConnection(dataSource));
    let refused;
    try {
      refused = await call('POST', '/v1/orgs', { id: 'late' });
    } finally {
      for (const connection of held) await connection.free();
    }
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.message).toBe(
      'every database connection stayed in use while the request waited; try again shortly',
    );

    expect((await call('GET', '/v1/orgs/late')).status).toBe(404);
    expect((await call('POST', '/v1/orgs', { id: 'late' })).status).toBe(201);
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
