/**
 * The pool gauges follow pg's pool: connections held by open transactions count as in use, and
 * a query asked for while every connection is held counts as waiting until one is given back.
 */
import { createServiceDataSource } from '@careen/persistence';
import { holdAConnection, useTestInfra } from '@careen/testing';
import { type DataSource } from 'typeorm';
import { MetricsRegistry } from './metrics.registry';
import { exportPoolMetrics } from './pool-metrics';

describe('database pool metrics', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  const metrics = new MetricsRegistry('pool-test');

  const gauges = async () => {
    const text = await metrics.registry.metrics();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1]);
    return {
      inUse: value(/^careen_db_pool_connections\{state="in-use"[^}]*\} (\d+)$/m),
      idle: value(/^careen_db_pool_connections\{state="idle"[^}]*\} (\d+)$/m),
      waiting: value(/^careen_db_pool_waiting_requests\{[^}]*\} (\d+)$/m),
    };
  };

  beforeAll(async () => {
    dataSource = createServiceDataSource({
      url: infra.databaseUrl,
      schema: 'public',
      entities: [],
      migrations: [],
      applicationName: 'pool-metrics-test',
      poolSize: 2,
    });
    exportPoolMetrics(metrics, dataSource);
    await dataSource.initialize();
  });

  afterAll(() => dataSource.destroy());

  it('counts connections in use and idle, and the queries waiting while all are in use', async () => {
    const held = [await holdAConnection(dataSource), await holdAConnection(dataSource)];
    expect(await gauges()).toEqual({ inUse: 2, idle: 0, waiting: 0 });

    const queued = dataSource.query('SELECT 1 AS one');
    expect(await gauges()).toEqual({ inUse: 2, idle: 0, waiting: 1 });

    for (const each of held) await each.free();
    expect(await queued).toEqual([{ one: 1 }]);
    expect(await gauges()).toEqual({ inUse: 0, idle: 2, waiting: 0 });
  });
});
