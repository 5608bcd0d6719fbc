import { connectBus, type BusConnection } from '@careen/bus';
import { STREAMS } from '@careen/contracts';
import { basic, bearer, eventually, http, readStream, useTestInfra } from '@careen/testing';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const ROOT_PASSWORD = 'root-password-1';
const root = basic('root', 'root', ROOT_PASSWORD);
const ada = basic('acme', 'ada', 'ada-password');
const bob = basic('acme', 'bob', 'bob-password');
const cy = basic('acme', 'cy', 'cy-password');
const bea = basic('beta', 'bea', 'bea-password');

describe('exchange: nodes and node credentials', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let bus: BusConnection;
  const call = (method: string, path: string, options?: Parameters<typeof http>[3]) =>
    http(exchange.url, method, path, options);

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    bus = await connectBus({ url: infra.natsUrl, name: 'nodes-test' });
    await call('POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await call('POST', '/v1/orgs', { auth: root, body: { id: 'beta' } });
    const users: [string, string, string][] = [
      ['acme', 'ada', 'orgAdmin'],
      ['acme', 'bob', 'operator'],
      ['acme', 'cy', 'operator'],
      ['beta', 'bea', 'orgAdmin'],
    ];
    for (const [org, username, role] of users) {
      await call('POST', `/v1/orgs/${org}/users`, {
        auth: root,
        body: { username, password: `${username}-password`, role },
      });
    }
    await call('PUT', '/v1/orgs/acme/nodes/n1', { auth: bob, body: { token: 'n1-token-secret' } });
    await call('PUT', '/v1/orgs/acme/nodes/n2', { auth: ada, body: { token: 'n2-token-secret' } });
    await call('PUT', '/v1/orgs/beta/nodes/b1', { auth: bea, body: { token: 'b1-token-secret' } });
  });

  afterAll(async () => {
    await bus.close();
    await exchange.close();
  });

  const n1 = basic('acme', 'n1', 'n1-token-secret');
  const n2 = basic('acme', 'n2', 'n2-token-secret');

  describe('registration', () => {
    it('generates a token shown once at registration and stores only its hash', async () => {
      const created = await call('PUT', '/v1/orgs/acme/nodes/gen1', {
        auth: ada,
        body: { name: 'Generated', labels: { zone: 'eu-1' }, tags: ['lab'], rack: 'r1' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ id: 'gen1', token: expect.any(String) });
      const token = created.body.token as string;
      expect(token.length).toBeGreaterThanOrEqual(24);

      const rows: { token_hash: string }[] = await exchange.app
        .get(DataSource)
        .query("SELECT token_hash FROM exchange.nodes WHERE org = 'acme' AND id = 'gen1'");
      expect(rows[0]?.token_hash).toMatch(/^scrypt\$/);
      expect(rows[0]?.token_hash).not.toContain(token);

      const updated = await call('PUT', '/v1/orgs/acme/nodes/gen1', { auth: ada, body: { name: 'Renamed' } });
      expect(updated.status).toBe(200);
      expect(updated.body).toEqual({ id: 'gen1' });
      expect(
        (await call('GET', '/v1/orgs/acme/nodes/gen1', { auth: basic('acme', 'gen1', token) })).status,
      ).toBe(200);
    });

    it('answers a node without its token or token hash, with defaults filled in', async () => {
      const node = await call('GET', '/v1/orgs/acme/nodes/gen1', { auth: ada });
      expect(node.body).toEqual({
        org: 'acme',
        id: 'gen1',
        name: 'Renamed',
        owner: 'acme/ada',
        pattern: null,
        policy: { properties: [], constraints: [] },
        labels: { zone: 'eu-1' },
        tags: ['lab'],
        rack: 'r1',
        haGroup: null,
        schedulable: true,
        maintenance: null,
        status: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(node.body)).not.toMatch(/token|scrypt/i);
    });

    it('rotates the token when a new one is given and returns it', async () => {
      await call('PUT', '/v1/orgs/acme/nodes/rot', { auth: ada, body: { token: 'first-token-1' } });
      const trade = (token: string) =>
        call('POST', '/v1/auth/token', { body: { org: 'acme', node: 'rot', token } });
      // Traded twice, so the exchange has it in memory as a token that matched.
      expect([(await trade('first-token-1')).status, (await trade('first-token-1')).status]).toEqual([
        200, 200,
      ]);
      const rotated = await call('PUT', '/v1/orgs/acme/nodes/rot', {
        auth: basic('acme', 'rot', 'first-token-1'),
        body: { token: 'second-token-2' },
      });
      expect(rotated.body).toEqual({ id: 'rot', token: 'second-token-2' });
      expect([(await trade('first-token-1')).status, (await trade('second-token-2')).status]).toEqual([
        401, 200,
      ]);
      expect(
        (await call('GET', '/v1/orgs/acme/nodes/rot', { auth: basic('acme', 'rot', 'first-token-1') }))
          .status,
      ).toBe(401);
      expect(
        (await call('GET', '/v1/orgs/acme/nodes/rot', { auth: basic('acme', 'rot', 'second-token-2') }))
          .status,
      ).toBe(200);
    });

    it('stores a policy given at registration and replaces it through PUT .../policy', async () => {
      const policy = {
        properties: [
          { name: 'careen.arch', value: 'amd64' },
          { name: 'cpus', value: 4, type: 'int' },
          { name: 'features', value: ['gpu', 'tpm'], type: 'list of strings' },
        ],
        constraints: ['purpose == "edge"'],
      };
      await call('PUT', '/v1/orgs/acme/nodes/pol', { auth: ada, body: { policy } });
      expect((await call('GET', '/v1/orgs/acme/nodes/pol', { auth: ada })).body.policy).toEqual(policy);

      const replaced = await call('PUT', '/v1/orgs/acme/nodes/pol/policy', {
        auth: ada,
        body: { properties: [{ name: 'zone', value: 'eu-2' }] },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body.policy).toEqual({
        properties: [{ name: 'zone', value: 'eu-2' }],
        constraints: [],
      });
    });

    it('lets a plain user change only the nodes they registered', async () => {
      expect(
        (await call('PATCH', '/v1/orgs/acme/nodes/n1', { auth: bob, body: { rack: 'r9' } })).status,
      ).toBe(200);
      const foreign = await call('PATCH', '/v1/orgs/acme/nodes/n1', { auth: cy, body: { rack: 'r0' } });
      expect(foreign.status).toBe(403);
      expect(foreign.body.message).toContain('owner');
      expect((await call('PUT', '/v1/orgs/acme/nodes/n1', { auth: cy, body: { name: 'mine' } })).status).toBe(
        403,
      );
      expect((await call('DELETE', '/v1/orgs/acme/nodes/n1', { auth: cy })).status).toBe(403);
      // Org admins may change every node of their org.
      expect(
        (await call('PATCH', '/v1/orgs/acme/nodes/n1', { auth: ada, body: { rack: 'r2' } })).status,
      ).toBe(200);
    });
  });

  describe('node credentials', () => {
    it('authenticates a node with Basic org/id:token', async () => {
      const me = await call('GET', '/v1/whoami', { auth: n1 });
      expect(me.body).toEqual({ kind: 'node', org: 'acme', node: 'n1' });
    });

    it('trades {org, node, token} for an access token of the node', async () => {
      const issued = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', node: 'n1', token: 'n1-token-secret' },
      });
      expect(issued.status).toBe(200);
      expect(issued.body).toEqual({ accessToken: expect.any(String), expiresIn: 900 });
      const me = await call('GET', '/v1/whoami', { auth: bearer(issued.body.accessToken) });
      expect(me.body).toEqual({ kind: 'node', org: 'acme', node: 'n1' });
      expect(
        (await call('GET', '/v1/orgs/acme/nodes/n1', { auth: bearer(issued.body.accessToken) })).status,
      ).toBe(200);
    });

    it('tells a user from a node of the same name by the secret given with Basic', async () => {
      await call('PUT', '/v1/orgs/acme/nodes/bob', { auth: ada, body: { token: 'bob-node-token' } });
      expect((await call('GET', '/v1/whoami', { auth: bob })).body).toMatchObject({
        kind: 'user',
        username: 'bob',
      });
      expect(
        (await call('GET', '/v1/whoami', { auth: basic('acme', 'bob', 'bob-node-token') })).body,
      ).toEqual({
        kind: 'node',
        org: 'acme',
        node: 'bob',
      });
      expect((await call('DELETE', '/v1/orgs/acme/nodes/bob', { auth: ada })).status).toBe(204);
    });

    it('answers 401 alike for a wrong node token and an unknown node', async () => {
      const wrong = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', node: 'n1', token: 'nope-nope' },
      });
      const unknown = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', node: 'ghost', token: 'nope-nope' },
      });
      expect([wrong.status, unknown.status]).toEqual([401, 401]);
      expect(wrong.body.message).toBe(unknown.body.message);
      expect((await call('GET', '/v1/whoami', { auth: basic('acme', 'n1', 'wrong-token') })).status).toBe(
        401,
      );
    });

    it('does not accept a node token in the user shape, nor a password in the node shape', async () => {
      const asUser = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', username: 'n1', password: 'n1-token-secret' },
      });
      expect(asUser.status).toBe(401);
      const asNode = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', node: 'ada', token: 'ada-password' },
      });
      expect(asNode.status).toBe(401);
    });

    it('refuses a token request that mixes the user and node shapes with 400 naming the fields', async () => {
      const mixed = await call('POST', '/v1/auth/token', {
        body: {
          org: 'acme',
          username: 'ada',
          password: 'ada-password',
          node: 'n1',
          token: 'n1-token-secret',
        },
      });
      expect(mixed.status).toBe(400);
      const fields = mixed.body.details.fields.map((detail: { field: string }) => detail.field);
      expect(fields).toEqual(expect.arrayContaining(['node', 'token']));
      expect(mixed.body.message).toContain('{org, node, token}');

      const half = await call('POST', '/v1/auth/token', { body: { org: 'acme', node: 'n1' } });
      expect(half.status).toBe(400);
      expect(half.body.details.fields.map((detail: { field: string }) => detail.field)).toEqual(['token']);
    });

    it('stops accepting Basic credentials of a node as soon as it is deleted', async () => {
      await call('PUT', '/v1/orgs/acme/nodes/doomed', { auth: ada, body: { token: 'doomed-token' } });
      const doomed = basic('acme', 'doomed', 'doomed-token');
      expect((await call('GET', '/v1/whoami', { auth: doomed })).status).toBe(200);
      const issued = await call('POST', '/v1/auth/token', {
        body: { org: 'acme', node: 'doomed', token: 'doomed-token' },
      });

      expect((await call('DELETE', '/v1/orgs/acme/nodes/doomed', { auth: ada })).status).toBe(204);
      expect((await call('GET', '/v1/whoami', { auth: doomed })).status).toBe(401);
      expect(
        (
          await call('POST', '/v1/auth/token', {
            body: { org: 'acme', node: 'doomed', token: 'doomed-token' },
          })
        ).status,
      ).toBe(401);
      // An access token issued before lives until it expires, but cannot bring the node back.
      const revived = await call('PUT', '/v1/orgs/acme/nodes/doomed', {
        auth: bearer(issued.body.accessToken),
        body: { name: 'back' },
      });
      expect(revived.status).toBe(404);
    });
  });

  describe('what a node may do', () => {
    it('writes its own status, with the heartbeat time set by the exchange', async () => {
      const before = Date.now();
      const written = await call('PUT', '/v1/orgs/acme/nodes/n1/status', {
        auth: n1,
        body: {
          agentVersion: { package: '2.31.0', failed: null, upgradeStart: '2026-11-01T10:00:00Z' },
          workloads: [
            {
              deploymentPolicy: 'web',
              service: { org: 'acme', url: 'acme.web', version: '1.0.0' },
              state: 'running',
            },
          ],
        },
      });
      expect(written.status).toBe(200);
      expect(written.body.status).toEqual({
        lastHeartbeat: expect.any(String),
        agentVersion: { package: '2.31.0', failed: null, upgradeStart: '2026-11-01T10:00:00Z' },
        workloads: [
          {
            deploymentPolicy: 'web',
            service: { org: 'acme', url: 'acme.web', version: '1.0.0' },
            state: 'running',
          },
        ],
      });
      expect(Date.parse(written.body.status.lastHeartbeat)).toBeGreaterThanOrEqual(before - 1000);
      expect(
        (await call('GET', '/v1/orgs/acme/nodes/n1', { auth: ada })).body.status.agentVersion.package,
      ).toBe('2.31.0');
    });

    it("is refused another node's status, record and workloads with 403", async () => {
      const cases: [string, string, unknown][] = [
        ['PUT', '/v1/orgs/acme/nodes/n2/status', { workloads: [] }],
        ['GET', '/v1/orgs/acme/nodes/n2', undefined],
        ['PUT', '/v1/orgs/acme/nodes/n2', { name: 'taken' }],
        ['PUT', '/v1/orgs/acme/nodes/n2/policy', { constraints: [] }],
        ['GET', '/v1/orgs/acme/nodes/n2/workloads', undefined],
        ['GET', '/v1/orgs/beta/nodes/b1', undefined],
      ];
      for (const [method, path, body] of cases) {
        const response = await call(method, path, { auth: n1, body });
        expect([method, path, response.status]).toEqual([method, path, 403]);
      }
    });

    it('is refused the user-only routes with 403', async () => {
      const cases: [string, string, unknown][] = [
        ['GET', '/v1/orgs/acme/nodes', undefined],
        ['PATCH', '/v1/orgs/acme/nodes/n1', { rack: 'r3' }],
        ['DELETE', '/v1/orgs/acme/nodes/n1', undefined],
        ['PUT', '/v1/orgs/acme/nodes/n1/workloads', { workloads: [] }],
        ['GET', '/v1/orgs/acme/users', undefined],
        ['POST', '/v1/orgs/acme/users', { username: 'sneaky', password: 'sneaky-pass', role: 'operator' }],
      ];
      for (const [method, path, body] of cases) {
        const response = await call(method, path, { auth: n1, body });
        expect([method, path, response.status]).toEqual([method, path, 403]);
      }
    });

    it('leaves status writing to the node: users, even admins, get 403', async () => {
      for (const auth of [ada, root]) {
        const response = await call('PUT', '/v1/orgs/acme/nodes/n1/status', {
          auth,
          body: { workloads: [] },
        });
        expect(response.status).toBe(403);
      }
    });

    it('reads its desired workloads, which only a hub admin writes for now', async () => {
      const workloads = [
        { deploymentPolicy: 'web', service: { org: 'acme', url: 'acme.web', version: '1.0.0' } },
      ];
      expect(
        (await call('PUT', '/v1/orgs/acme/nodes/n2/workloads', { auth: ada, body: { workloads } })).status,
      ).toBe(403);
      const written = await call('PUT', '/v1/orgs/acme/nodes/n2/workloads', {
        auth: root,
        body: { workloads },
      });
      expect(written.status).toBe(200);
      expect(written.body).toEqual({ items: workloads, total: 1 });
      expect((await call('GET', '/v1/orgs/acme/nodes/n2/workloads', { auth: n2 })).body).toEqual({
        items: workloads,
        total: 1,
      });
      expect((await call('GET', '/v1/orgs/acme/nodes/n1/workloads', { auth: n1 })).body).toEqual({
        items: [],
        total: 0,
      });
    });
  });

  describe('org isolation', () => {
    const cases: [string, string, unknown][] = [
      ['GET', '/v1/orgs/beta/nodes', undefined],
      ['GET', '/v1/orgs/beta/nodes/b1', undefined],
      ['PUT', '/v1/orgs/beta/nodes/b1', { name: 'mine now' }],
      ['PUT', '/v1/orgs/beta/nodes/planted', { token: 'planted-token' }],
      ['PATCH', '/v1/orgs/beta/nodes/b1', { schedulable: false }],
      ['PUT', '/v1/orgs/beta/nodes/b1/policy', { constraints: [] }],
      ['GET', '/v1/orgs/beta/nodes/b1/workloads', undefined],
      ['DELETE', '/v1/orgs/beta/nodes/b1', undefined],
    ];

    it.each(cases)(
      'refuses %s %s to an admin of another org with 403 and no data',
      async (method, path, body) => {
        const response = await call(method, path, { auth: ada, body });
        expect(response.status).toBe(403);
        expect(JSON.stringify(response.body)).not.toContain('b1');
      },
    );

    it('left the other org untouched', async () => {
      const list = await call('GET', '/v1/orgs/beta/nodes', { auth: bea });
      expect(
        list.body.items.map((node: { id: string; name: string; schedulable: boolean }) => [
          node.id,
          node.name,
          node.schedulable,
        ]),
      ).toEqual([['b1', 'b1', true]]);
    });

    it('does not accept a node of one org as a node of another', async () => {
      expect((await call('GET', '/v1/whoami', { auth: basic('beta', 'n1', 'n1-token-secret') })).status).toBe(
        401,
      );
    });
  });

  describe('PATCH, DELETE and filters', () => {
    beforeAll(async () => {
      const nodes: [string, Record<string, string>][] = [
        ['f1', { zone: 'eu-1', tier: 'gold' }],
        ['f2', { zone: 'eu-1' }],
        ['f3', { zone: 'us-1', tier: 'gold' }],
      ];
      for (const [id, labels] of nodes) {
        await call('PUT', `/v1/orgs/beta/nodes/${id}`, { auth: bea, body: { labels } });
      }
      const group = await call('POST', '/v1/orgs/beta/hagroups', {
        auth: bea,
        body: { name: 'g1', members: ['f1', 'f3'] },
      });
      expect(group.status).toBe(201);
    });

    const ids = (body: { items: { id: string }[]; total: number }) => {
      expect(body.total).toBe(body.items.length);
      return body.items.map((node) => node.id);
    };

    it('lists the nodes of an org in id order', async () => {
      expect(ids((await call('GET', '/v1/orgs/beta/nodes', { auth: bea })).body)).toEqual([
        'b1',
        'f1',
        'f2',
        'f3',
      ]);
    });

    it('filters by label value, by label presence, by several labels and by HA group', async () => {
      const list = async (query: string) =>
        ids((await call('GET', `/v1/orgs/beta/nodes?${query}`, { auth: bea })).body);
      expect(await list('label=zone=eu-1')).toEqual(['f1', 'f2']);
      expect(await list('label=tier')).toEqual(['f1', 'f3']);
      expect(await list('label=zone=eu-1&label=tier=gold')).toEqual(['f1']);
      expect(await list('haGroup=g1')).toEqual(['f1', 'f3']);
      expect(await list('haGroup=g1&label=zone=us-1')).toEqual(['f3']);
      expect(await list('label=zone=mars')).toEqual([]);
    });

    it('refuses an unknown or malformed filter with 400 naming it', async () => {
      const unknown = await call('GET', '/v1/orgs/beta/nodes?colour=red', { auth: bea });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toContain('colour');
      const badGroup = await call('GET', '/v1/orgs/beta/nodes?haGroup=a.b', { auth: bea });
      expect(badGroup.status).toBe(400);
      expect(badGroup.body.message).toContain('haGroup');
    });

    it('patches only the given fields, clears rack and pattern with null, and can make a node unschedulable', async () => {
      await call('PATCH', '/v1/orgs/beta/nodes/f2', {
        auth: bea,
        body: { rack: 'r7', pattern: 'beta/gateway' },
      });
      const patched = await call('PATCH', '/v1/orgs/beta/nodes/f2', {
        auth: bea,
        body: { schedulable: false, tags: ['spare'], rack: null },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        id: 'f2',
        schedulable: false,
        tags: ['spare'],
        rack: null,
        pattern: 'beta/gateway',
        labels: { zone: 'eu-1' },
      });
      const cleared = await call('PATCH', '/v1/orgs/beta/nodes/f2', { auth: bea, body: { pattern: null } });
      expect(cleared.body.pattern).toBeNull();
      expect((await call('PATCH', '/v1/orgs/beta/nodes/f2', { auth: bea, body: {} })).status).toBe(200);
    });

    it('deletes a node, then answers 404 for it', async () => {
      expect((await call('DELETE', '/v1/orgs/beta/nodes/f3', { auth: bea })).status).toBe(204);
      expect((await call('GET', '/v1/orgs/beta/nodes/f3', { auth: bea })).status).toBe(404);
      expect((await call('DELETE', '/v1/orgs/beta/nodes/f3', { auth: bea })).status).toBe(404);
      expect((await call('PATCH', '/v1/orgs/beta/nodes/f3', { auth: bea, body: { rack: 'x' } })).status).toBe(
        404,
      );
    });

    it('answers 404 when registering a node in an org that does not exist', async () => {
      expect((await call('PUT', '/v1/orgs/nowhere/nodes/x1', { auth: root, body: {} })).status).toBe(404);
    });

    it('refuses a node id that is not an identifier with 400', async () => {
      const response = await call('PUT', '/v1/orgs/beta/nodes/bad.id', { auth: bea, body: {} });
      expect(response.status).toBe(400);
      expect(response.body.details.fields.map((detail: { field: string }) => detail.field)).toEqual(['id']);
    });
  });

  it('describes the node routes in its OpenAPI document', async () => {
    const document = await call('GET', '/docs/openapi.json');
    expect(document.status).toBe(200);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/orgs/{org}/nodes/{id}',
        '/v1/orgs/{org}/nodes/{id}/status',
        '/v1/orgs/{org}/services/{id}',
        '/v1/orgs/{org}/deployment-policies/{name}',
      ]),
    );
  });

  describe('change feed', () => {
    it('publishes registration, update, status, workloads and deletion of a node', async () => {
      await call('POST', '/v1/orgs', { auth: root, body: { id: 'feed' } });
      await call('PUT', '/v1/orgs/feed/nodes/fx', { auth: root, body: { token: 'fx-token-secret' } });
      await call('PATCH', '/v1/orgs/feed/nodes/fx', { auth: root, body: { rack: 'r1' } });
      await call('PUT', '/v1/orgs/feed/nodes/fx/status', {
        auth: basic('feed', 'fx', 'fx-token-secret'),
        body: { workloads: [] },
      });
      await call('PUT', '/v1/orgs/feed/nodes/fx/workloads', { auth: root, body: { workloads: [] } });
      await call('DELETE', '/v1/orgs/feed/nodes/fx', { auth: root });
      // A refused mutation publishes nothing.
      await call('PATCH', '/v1/orgs/feed/nodes/fx', { auth: root, body: { rack: 'r2' } });

      const messages = await eventually(() =>
        readStream(bus, STREAMS.changes.name, {
          count: 5,
          filterSubject: 'careen.changes.feed.node.>',
          timeoutMs: 5_000,
        }),
      );
      expect(messages.map((message) => [message.subject, message.body.operation])).toEqual([
        ['careen.changes.feed.node.fx', 'created'],
        ['careen.changes.feed.node.fx', 'updated'],
        ['careen.changes.feed.node.fx', 'updated'],
        ['careen.changes.feed.node.fx', 'updated'],
        ['careen.changes.feed.node.fx', 'deleted'],
      ]);
      expect(messages[1]?.body.data).toMatchObject({ id: 'fx', rack: 'r1' });
      expect(JSON.stringify(messages.map((message) => message.body))).not.toMatch(/scrypt|fx-token-secret/);
      const info = await bus.jsm.streams.info(STREAMS.changes.name, {
        subjects_filter: 'careen.changes.feed.node.>',
      });
      expect(info.state.subjects?.['careen.changes.feed.node.fx']).toBe(5);
    });
  });
});
