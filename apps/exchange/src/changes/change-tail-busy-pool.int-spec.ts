/**
 * An exchange whose one database connection is in use still hands a change to the nodes that
 * wait for one: the change feed reads new changes on the connection it listens on.
 */
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, bearer, holdAConnection, http, useTestInfra } from '@careen/testing';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const root = basic('root', 'root', 'root-password-1');

describe('the change feed of an exchange whose one database connection is in use', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let nodeToken: string;
  /** The node's poll with a token: answered from memory, with no statement of its own. */
  const poll = (query: string) =>
    http(exchange.url, 'GET', `/v1/orgs/acme/changes?${query}`, { auth: bearer(nodeToken) });
  const call = (method: string, path: string, body?: unknown) =>
    http(exchange.url, method, path, { auth: root, body });

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
      // One connection: migrations run on the one that holds their lock.
      CAREEN_DATABASE_POOL_SIZE: '1',
    });
    expect((await call('POST', '/v1/orgs', { id: 'acme' })).status).toBe(201);
    expect(
      (await call('PUT', '/v1/orgs/acme/nodes/edge-1', { token: 'edge-1-token-long-enough' })).status,
    ).toBe(201);
    const issued = await call('POST', '/v1/auth/token', {
      org: 'acme',
      node: 'edge-1',
      token: 'edge-1-token-long-enough',
    });
    nodeToken = issued.body.accessToken as string;
  });

  afterAll(() => exchange.close());

  it('wakes a waiting node with a change made meanwhile, however long the requests queue', async () => {
    const { lastId } = (await poll('since=0')).body as { lastId: number };
    // A replica on the same database, with connections of its own, makes the change.
    const replica = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    });
    const held = await holdAConnection(exchange.app.get(DataSource));
    try {
      const waiting = poll(`since=${lastId}&wait=20`);
      const renamed = await http(replica.url, 'PUT', '/v1/orgs/acme/nodes/edge-1', {
        auth: root,
        body: { name: 'Renamed while the pool is held' },
      });
      expect(renamed.status).toBe(200);
      const answer = await waiting;
      expect(answer.status).toBe(200);
      const changes = answer.body.changes as { resource: string; resourceId: string }[];
      expect(changes.at(-1)).toMatchObject({ resource: 'node', resourceId: 'edge-1' });
    } finally {
      await held.free();
      await replica.close();
    }
  });
});
