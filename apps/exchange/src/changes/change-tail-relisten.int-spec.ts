/**
 * The change feed listens again however long Postgres stays out of its reach: a reconnect that
 * fails is tried again, not given up.
 */
import {
  SERVICE_CONFIG,
  SERVICE_LOGGER,
  startServiceInProcess,
  type InProcessService,
  type ServiceConfig,
} from '@careen/service';
import { eventually, startTcpProxy, type TcpProxy, useTestInfra } from '@careen/testing';
import { type JsonLogger } from '@careen/telemetry';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';
import { ChangeLogRepository } from './change-log.repository';
import { ChangeTail } from './change-tail';

describe('the change feed listener', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let proxy: TcpProxy;
  /** A second tail, whose listening connection goes through the proxy. */
  let tail: ChangeTail;

  /** The listening connections of this database: the exchange's own tail's and the second one's. */
  const listeners = async () => {
    const [row]: { count: number }[] = await exchange.app.get(DataSource).query(
      `SELECT count(*)::int AS count FROM pg_stat_activity
         WHERE application_name = 'exchange-change-feed' AND datname = current_database()`,
    );
    return row!.count;
  };

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    });
    const database = new URL(infra.databaseUrl);
    proxy = await startTcpProxy([Number(database.port)]);
    database.hostname = '127.0.0.1';
    database.port = String(proxy.port);
    tail = new ChangeTail(
      exchange.app.get(ChangeLogRepository),
      { ...exchange.app.get<ServiceConfig>(SERVICE_CONFIG), CAREEN_DATABASE_URL: database.toString() },
      exchange.app.get<JsonLogger>(SERVICE_LOGGER),
    );
    await tail.onModuleInit();
  });

  afterAll(async () => {
    await tail.onModuleDestroy();
    await proxy.close();
    await exchange.close();
  });

  it('keeps trying to listen again after a reconnect fails, and listens once Postgres is back', async () => {
    await eventually(async () => expect(await listeners()).toBe(2));
    // The connection is cut and the reconnect a second later is refused.
    await proxy.refuse();
    await eventually(async () => expect(await listeners()).toBe(1));
    proxy.heal();
    await eventually(async () => expect(await listeners()).toBe(2), { timeoutMs: 10_000 });
  });
});
