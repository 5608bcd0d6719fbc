import { connectBus, type BusConnection } from '@careen/bus';
import { STREAMS } from '@careen/contracts';
import { basic, bearer, eventually, http, readStream, useTestInfra } from '@careen/testing';
import { KEEP_ALIVE_SECONDS, startServiceInProcess, type InProcessService } from '@careen/service';
import { once } from 'node:events';
import { connect } from 'node:net';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from './exchange.config';
import { exchangeService } from './exchange.service';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);

describe('exchange: orgs, users and credentials', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let bus: BusConnection;
  const call = (method: string, path: string, options?: Parameters<typeof http>[3]) =>
    http(exchange.url, method, path, options);

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    bus = await connectBus({ url: infra.natsUrl, name: 'exchange-test' });
    await call('POST', '/v1/orgs', { auth: root, body: { id: 'acme', label: 'Acme' } });
    await call('POST', '/v1/orgs', { auth: root, body: { id: 'beta' } });
    await call('POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'ada', password: 'ada-password', role: 'orgAdmin' },
    });
    await call('POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'bob', password: 'bob-password', role: 'operator' },
    });
    await call('POST', '/v1/orgs/beta/users', {
      auth: root,
      body: { username: 'bea', password: 'bea-password', role: 'orgAdmin' },
    });
  });

  afterAll(async () => {
    await bus.close();
    await exchange.close();
  });

  const ada = basic('acme', 'ada', 'ada-password');
  const bob = basic('acme', 'bob', 'bob-password');
  const bea = basic('beta', 'bea', 'bea-password');

  describe('credentials', () => {
    it("reads the previous release's `user` role as operator, in a login and in its tokens", async () => {
      // A user the previous release wrote: its role is stored as `user`.
      await exchange.app
        .get(DataSource)
        .query(`UPDATE exchange.users SET role = 'user' WHERE org = 'acme' AND username = 'bob'`);
      const me = await call('GET', '/v1/whoami', { auth: bob });
      expect(me.body).toEqual({ kind: 'user', org: 'acme', username: 'bob', role: 'operator' });
      const token = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', username: 'bob', password: 'bob-password' },
      });
      const byToken = await call('GET', '/v1/orgs/acme/users/bob', { auth: bearer(token.body.accessToken) });
      expect(byToken.body).toMatchObject({ username: 'bob', role: 'operator' });
    });

    it('trades user credentials for a token that the exchange accepts as Bearer', async () => {
      const token = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', username: 'ada', password: 'ada-password' },
      });
      expect(token.status).toBe(200);
      expect(token.body.expiresIn).toBe(900);

      const me = await call('GET', '/v1/whoami', { auth: bearer(token.body.accessToken) });
      expect(me.body).toEqual({ kind: 'user', org: 'acme', username: 'ada', role: 'orgAdmin' });
    });

    it('answers 401 alike for a wrong password and an unknown user', async () => {
      const wrong = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', username: 'ada', password: 'nope-nope' },
      });
      const unknown = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', username: 'nobody', password: 'nope-nope' },
      });
      expect([wrong.status, unknown.status]).toEqual([401, 401]);
      expect(wrong.body.message).toBe(unknown.body.message);
    });

    it('answers 401 to requests without credentials or with a garbage token', async () => {
      expect((await call('GET', '/v1/orgs/acme')).status).toBe(401);
      const garbage = await call('GET', '/v1/orgs/acme', { auth: bearer('not.a.jwt') });
      expect(garbage.status).toBe(401);
      expect(garbage.headers.get('www-authenticate')).toContain('Bearer');
    });

    it('publishes its signing keys without private parts', async () => {
      const jwks = await call('GET', '/v1/auth/jwks');
      expect(jwks.status).toBe(200);
      expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
      expect(jwks.body.keys[0].d).toBeUndefined();
      const etag = jwks.headers.get('etag');
      expect(etag).toMatch(/^"[\w-]+"$/);
      // As a cache revalidates (fetch would otherwise add `no-cache`, which asks for the whole set).
      const revalidated = await call('GET', '/v1/auth/jwks', {
        headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' },
      });
      expect(revalidated.status).toBe(304);
    });

    it('keeps an idle connection open longer than load balancers keep theirs, and says so', async () => {
      const head = await call('GET', '/v1/orgs/acme', { auth: root });
      expect(head.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_SECONDS}`);
    });

    it('closes the connections still open as it stops, one that never sent a request too', async () => {
      const replica = await startServiceInProcess(exchangeService, infra, {
        CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      });
      const { hostname, port } = new URL(replica.url);
      const silent = connect(Number(port), hostname);
      await once(silent, 'connect');
      const kept = await http(replica.url, 'GET', '/v1/orgs/acme', { auth: root });
      expect(kept.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_SECONDS}`);
      // Else Node waits for the client to hang up: a stop held until its grace ran out.
      await Promise.all([replica.close(), once(silent, 'close')]);
    }, 20_000);

    it('answers JSON without an ETag hashed over it', async () => {
      const head = await call('GET', '/v1/orgs/acme', { auth: root });
      expect(head.status).toBe(200);
      expect(head.headers.get('etag')).toBeNull();
    });
  });

  describe('orgs', () => {
    it('lets only a hub admin create an org, and refuses a duplicate with 409', async () => {
      expect((await call('POST', '/v1/orgs', { auth: ada, body: { id: 'gamma' } })).status).toBe(403);
      const duplicate = await call('POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.message).toContain('acme');
    });

    it('shows an org to its members and to hub admins', async () => {
      expect((await call('GET', '/v1/orgs/acme', { auth: bob })).body).toMatchObject({
        id: 'acme',
        label: 'Acme',
      });
      expect((await call('GET', '/v1/orgs/acme', { auth: root })).status).toBe(200);
      expect((await call('GET', '/v1/orgs/nowhere', { auth: root })).status).toBe(404);
    });

    it("lists every org to hub admins, and only a user's own org to the user", async () => {
      const listed = await call('GET', '/v1/orgs', { auth: root });
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((org: { id: string }) => org.id)).toEqual(['acme', 'beta', 'root']);
      const own = await call('GET', '/v1/orgs', { auth: ada });
      expect(own.body).toMatchObject({ items: [{ id: 'acme' }], total: 1 });
    });
  });

  describe('users', () => {
    it('adds, lists, shows and removes users of an org', async () => {
      const added = await call('POST', '/v1/orgs/acme/users', {
        auth: ada,
        body: { username: 'cy', password: 'cy-password', role: 'operator' },
      });
      expect(added.status).toBe(201);
      expect(added.body).toEqual({
        org: 'acme',
        username: 'cy',
        role: 'operator',
        identityProvider: null,
        createdAt: expect.any(String),
      });

      const list = await call('GET', '/v1/orgs/acme/users', { auth: ada });
      expect(list.body.total).toBe(3);
      expect(list.body.items.map((user: { username: string }) => user.username)).toEqual([
        'ada',
        'bob',
        'cy',
      ]);
      expect(JSON.stringify(list.body)).not.toContain('password');

      expect((await call('DELETE', '/v1/orgs/acme/users/cy', { auth: ada })).status).toBe(204);
      expect((await call('GET', '/v1/orgs/acme/users/cy', { auth: ada })).status).toBe(404);
      expect((await call('DELETE', '/v1/orgs/acme/users/cy', { auth: ada })).status).toBe(404);
    });

    it('refuses a duplicate user with 409', async () => {
      const duplicate = await call('POST', '/v1/orgs/acme/users', {
        auth: ada,
        body: { username: 'bob', password: 'whatever1', role: 'operator' },
      });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.message).toBe('user "acme/bob" already exists');
    });

    it('keeps plain users to their own record', async () => {
      expect((await call('GET', '/v1/orgs/acme/users/bob', { auth: bob })).status).toBe(200);
      expect((await call('GET', '/v1/orgs/acme/users/ada', { auth: bob })).status).toBe(403);
      expect((await call('GET', '/v1/orgs/acme/users', { auth: bob })).status).toBe(403);
      expect(
        (
          await call('POST', '/v1/orgs/acme/users', {
            auth: bob,
            body: { username: 'eve', password: 'eve-password', role: 'orgAdmin' },
          })
        ).status,
      ).toBe(403);
    });

    it('lets only a hub admin create hub admins, and only in the root org', async () => {
      const byOrgAdmin = await call('POST', '/v1/orgs/acme/users', {
        auth: ada,
        body: { username: 'boss', password: 'boss-password', role: 'hubAdmin' },
      });
      expect(byOrgAdmin.status).toBe(403);
      const outsideRoot = await call('POST', '/v1/orgs/acme/users', {
        auth: root,
        body: { username: 'boss', password: 'boss-password', role: 'hubAdmin' },
      });
      expect(outsideRoot.status).toBe(403);
      expect(outsideRoot.body.message).toContain('root');
    });

    it('never removes the hub admin root/root', async () => {
      const removed = await call('DELETE', '/v1/orgs/root/users/root', { auth: root });
      expect(removed.status).toBe(409);
    });
  });

  describe('org isolation', () => {
    // Every row has three cells: jest would take a missing third argument for a `done` callback.
    const cases: [string, string, unknown][] = [
      ['GET', '/v1/orgs/beta', undefined],
      ['GET', '/v1/orgs/beta/users', undefined],
      ['GET', '/v1/orgs/beta/users/bea', undefined],
      ['POST', '/v1/orgs/beta/users', { username: 'mole', password: 'mole-password', role: 'operator' }],
      ['DELETE', '/v1/orgs/beta/users/bea', undefined],
    ];

    it.each(cases)(
      'refuses %s %s to an admin of another org with 403 and no data',
      async (method, path, body) => {
        const response = await call(method, path, { auth: ada, body });
        expect(response.status).toBe(403);
        expect(JSON.stringify(response.body)).not.toContain('bea');
      },
    );

    it('left org B untouched', async () => {
      const users = await call('GET', '/v1/orgs/beta/users', { auth: bea });
      expect(users.body.items.map((user: { username: string }) => user.username)).toEqual(['bea']);
    });
  });

  describe('change feed', () => {
    it('publishes every committed mutation to CAREEN_CHANGES with a commit-ordered id', async () => {
      await call('POST', '/v1/orgs', { auth: root, body: { id: 'delta' } });
      await call('POST', '/v1/orgs/delta/users', {
        auth: root,
        body: { username: 'dee', password: 'dee-password', role: 'orgAdmin' },
      });
      await call('DELETE', '/v1/orgs/delta/users/dee', { auth: root });
      // A refused mutation publishes nothing.
      await call('POST', '/v1/orgs', { auth: root, body: { id: 'delta' } });

      const messages = await eventually(() =>
        readStream(bus, STREAMS.changes.name, {
          count: 3,
          filterSubject: 'careen.changes.delta.>',
          timeoutMs: 5_000,
        }),
      );

      expect(messages.map((message) => [message.subject, message.body.operation])).toEqual([
        ['careen.changes.delta.org.delta', 'created'],
        ['careen.changes.delta.user.dee', 'created'],
        ['careen.changes.delta.user.dee', 'deleted'],
      ]);
      expect(messages[0]?.headers['ce-type']).toBe('careen.exchange.changed');
      expect(messages[0]?.headers['ce-source']).toBe('careen/exchange');
      const ids = messages.map((message) => Number(message.headers['ce-id']?.replace('exchange-', '')));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(messages[0]?.headers['Nats-Msg-Id']).toBe(messages[0]?.headers['ce-id']);
      const info = await bus.jsm.streams.info(STREAMS.changes.name);
      expect(info.state.subjects?.['careen.changes.delta.org.delta'] ?? 1).toBe(1);
    });
  });
});
