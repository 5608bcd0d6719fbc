/**
 * While every database connection of the exchange is in use, a request marked more urgent than
 * the default (`Priority: u=1`, as an agent marks its requests while its node is out of service)
 * is served before the requests that were waiting ahead of it; `u=3`, the default, or a value
 * out of range waits its turn.
 */
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { type PrecedencePool } from '@careen/persistence';
import { basic, bearer, holdAConnection, http, useTestInfra } from '@careen/testing';
import { DataSource } from 'typeorm';
import { type PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { type ExchangeConfig } from './exchange.config';
import { exchangeService } from './exchange.service';

const PASSWORD = 'root-password-1';

describe('an exchange with every database connection in use', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let dataSource: DataSource;
  let token: string;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: PASSWORD,
      CAREEN_DATABASE_POOL_SIZE: '1',
      CAREEN_DATABASE_POOL_WAIT_MS: '600000',
    });
    dataSource = exchange.app.get(DataSource);
    // A bearer token is checked without the database, so each request below waits only for its read.
    ({
      body: { accessToken: token },
    } = await http(exchange.url, 'POST', '/v1/auth/token', {
      body: { org: 'root', username: 'root', password: PASSWORD },
    }));
    await http(exchange.url, 'POST', '/v1/orgs', {
      auth: basic('root', 'root', PASSWORD),
      body: { id: 'fleet' },
    });
  });

  afterAll(() => exchange.close());

  /** Sends the reads, one after the other, while the connection is held; the order they were answered in. */
  const answerOrder = async (reads: Array<[name: string, priority?: string]>) => {
    const pool = (dataSource.driver as PostgresDriver).master as PrecedencePool;
    const held = await holdAConnection(dataSource);
    const answered: string[] = [];
    const pending = [];
    for (const [name, priority] of reads) {
      pending.push(
        http(exchange.url, 'GET', '/v1/orgs/fleet', {
          auth: bearer(token),
          headers: priority ? { priority } : {},
        }).then(({ status }) => answered.push(`${name} ${status}`)),
      );
      // Each read waits for the connection before the next is sent.
      while (pool.queued < pending.length) {
        if (answered.length > 0) throw new Error(`answered before the connection came free: ${answered}`);
        await new Promise((turn) => setImmediate(turn));
      }
    }
    await held.free();
    await Promise.all(pending);
    return answered;
  };

  it('serves an urgent request before the routine ones waiting ahead of it', async () => {
    expect(await answerOrder([['routine 1'], ['routine 2'], ['urgent', 'u=1, i'], ['routine 3']])).toEqual([
      'urgent 200',
      'routine 1 200',
      'routine 2 200',
      'routine 3 200',
    ]);
  });

  it('keeps first come, first served for the default urgency and for values it does not read', async () => {
    expect(
      await answerOrder([['routine'], ['default', 'u=3'], ['out of range', 'u=9'], ['not a number', 'u=x']]),
    ).toEqual(['routine 200', 'default 200', 'out of range 200', 'not a number 200']);
  });
});
