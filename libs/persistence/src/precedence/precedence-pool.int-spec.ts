/**
 * A service's pool, as createServiceDataSource builds it, on a real Postgres: while every
 * connection is in use, queries run with precedence take the next free one before queries
 * without, each kind in arrival order; a wait past the pool's bound fails with node-postgres's
 * message and costs the pool no connection; ending the pool fails those still waiting.
 */
import { holdAConnection, useTestInfra } from '@careen/testing';
import { type DataSource } from 'typeorm';
import { type PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { createServiceDataSource } from '../service-data-source';
import { withPrecedence } from './connection-precedence';
import { PrecedencePool } from './precedence-pool';

describe('PrecedencePool', () => {
  const infra = useTestInfra();

  const dataSourceWith = async (poolWaitMs?: number) => {
    const dataSource = createServiceDataSource({
      url: infra.databaseUrl,
      schema: 'public',
      entities: [],
      migrations: [],
      applicationName: 'precedence-pool-test',
      poolSize: 1,
      poolWaitMs,
    });
    await dataSource.initialize();
    return { dataSource, pool: (dataSource.driver as PostgresDriver).master as PrecedencePool };
  };

  /**
   * Resolves once `count` queries wait their turn: the ones sent through TypeORM get there a few
   * turns of the event loop later.
   */
  const queuedReaches = async (pool: PrecedencePool, count: number) => {
    while (pool.queued < count) await new Promise((turn) => setImmediate(turn));
  };

  let dataSource: DataSource;
  let pool: PrecedencePool;

  beforeAll(async () => ({ dataSource, pool } = await dataSourceWith()));
  afterAll(() => dataSource.destroy());

  it('is the pool a service data source queries on', () => {
    expect(pool).toBeInstanceOf(PrecedencePool);
  });

  it('gives the next free connection to the queries run with precedence, each kind first come, first served', async () => {
    const held = await holdAConnection(dataSource);
    const answered: string[] = [];
    const query = (tag: string) =>
      pool
        .query<{ tag: string }>('SELECT $1::text AS tag', [tag])
        .then(({ rows }) => answered.push(rows[0]!.tag));
    const all = [
      query('routine 1'),
      withPrecedence(() => query('urgent 1')),
      query('routine 2'),
      // Through TypeORM, whose awaits before it asks the pool keep the precedence.
      withPrecedence(() => dataSource.query('SELECT 1').then(() => answered.push('urgent 2'))),
      query('routine 3'),
    ];
    await queuedReaches(pool, 5);

    await held.free();
    await Promise.all(all);
    expect(answered).toEqual(['urgent 1', 'urgent 2', 'routine 1', 'routine 2', 'routine 3']);
    expect(pool.queued).toBe(0);
  });

  describe('with a bound on the wait', () => {
    let bounded: { dataSource: DataSource; pool: PrecedencePool };

    beforeAll(async () => (bounded = await dataSourceWith(200)));
    afterAll(() => bounded.dataSource.destroy());

    it("fails a query still waiting at the bound with node-postgres's message, and keeps its connections", async () => {
      const held = await holdAConnection(bounded.dataSource);
      await expect(withPrecedence(() => bounded.dataSource.query('SELECT 1'))).rejects.toThrow(
        'timeout exceeded when trying to connect',
      );
      expect(bounded.pool.queued).toBe(0);

      await held.free();
      expect(await bounded.dataSource.query('SELECT 2 AS two')).toEqual([{ two: 2 }]);
    });
  });

  it('fails the queries still waiting when it ends', async () => {
    const own = new PrecedencePool({ connectionString: infra.databaseUrl, max: 1 });
    const client = await own.connect();
    const waiting = own.query('SELECT 1');
    expect(own.queued).toBe(1);

    const ended = own.end();
    await expect(waiting).rejects.toThrow('Cannot use a pool after calling end on the pool');
    client.release();
    await ended;
  });
});
