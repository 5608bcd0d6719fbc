import { connectBus, type BusConnection } from '@careen/bus';
import { STREAMS } from '@careen/contracts';
import {
  eventually,
  http,
  readStream,
  ROOT_PASSWORD,
  seededNode,
  seededRoot as root,
  seededUser,
  seedExchange,
  useTestInfra,
} from '@careen/testing';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const ada = seededUser('acme', 'ada');
const bob = seededUser('acme', 'bob');
const bea = seededUser('beta', 'bea');
const node = seededNode('acme', 'n1');

const gateway = {
  url: 'acme.gateway',
  version: '1.4.2',
  arch: 'amd64',
  runtime: { kind: 'process', command: ['/opt/gateway/bin/gateway'] },
};

const webPolicy = {
  project: 'web',
  service: { org: 'acme', url: 'acme.gateway', versionRange: '>=1.2.0 <2.0.0' },
  properties: [{ name: 'tier', value: 'gold' }],
  constraints: ['careen.arch == amd64'],
  placement: { mode: 'replicas', replicas: 2 },
};

describe('exchange: services and deployment policies', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let bus: BusConnection;
  const call = (method: string, path: string, options?: Parameters<typeof http>[3]) =>
    http(exchange.url, method, path, options);
  const fields = (body: { details: { fields: { field: string }[] } }) =>
    body.details.fields.map((detail) => detail.field);

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    bus = await connectBus({ url: infra.natsUrl, name: 'services-test' });
    await seedExchange(exchange.url, {
      acme: { users: { ada: 'orgAdmin', bob: 'operator' }, nodes: ['n1'] },
      beta: { users: { bea: 'orgAdmin' } },
    });
  });

  afterAll(async () => {
    await bus.close();
    await exchange.close();
  });

  describe('services', () => {
    it('creates with 201, replaces with 200, lists, shows and deletes a service', async () => {
      const created = await call('PUT', '/v1/orgs/acme/services/gw-142', { auth: ada, body: gateway });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        org: 'acme',
        id: 'gw-142',
        ...gateway,
        description: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });

      const replaced = await call('PUT', '/v1/orgs/acme/services/gw-142', {
        auth: ada,
        body: { ...gateway, runtime: { kind: 'simulated' }, description: 'the gateway' },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ runtime: { kind: 'simulated' }, description: 'the gateway' });

      await call('PUT', '/v1/orgs/acme/services/gw-150', {
        auth: ada,
        body: { ...gateway, version: '1.5.0' },
      });
      await call('PUT', '/v1/orgs/acme/services/other', {
        auth: ada,
        body: { ...gateway, url: 'acme.other' },
      });
      const list = await call('GET', '/v1/orgs/acme/services', { auth: bob });
      expect(list.body.total).toBe(3);
      expect(list.body.items.map((service: { id: string }) => service.id)).toEqual([
        'gw-142',
        'gw-150',
        'other',
      ]);
      const versions = await call('GET', '/v1/orgs/acme/services?url=acme.gateway', { auth: bob });
      expect(versions.body.items.map((service: { version: string }) => service.version)).toEqual([
        '1.4.2',
        '1.5.0',
      ]);

      expect((await call('GET', '/v1/orgs/acme/services/gw-150', { auth: bob })).body.version).toBe('1.5.0');
      expect((await call('DELETE', '/v1/orgs/acme/services/gw-150', { auth: ada })).status).toBe(204);
      expect((await call('GET', '/v1/orgs/acme/services/gw-150', { auth: ada })).status).toBe(404);
      expect((await call('DELETE', '/v1/orgs/acme/services/gw-150', { auth: ada })).status).toBe(404);
    });

    it('refuses a second service with the same url, version and arch with 409', async () => {
      const duplicate = await call('PUT', '/v1/orgs/acme/services/gw-copy', { auth: ada, body: gateway });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.message).toContain('acme.gateway 1.4.2');
      // The same url and version for another arch is a different service.
      const arm = await call('PUT', '/v1/orgs/acme/services/gw-arm', {
        auth: ada,
        body: { ...gateway, arch: 'arm64' },
      });
      expect(arm.status).toBe(201);
    });

    it.each([
      ['a version that is not semver', { version: '1.4' }, 'version'],
      ['a version with a v prefix', { version: 'v1.4.2' }, 'version'],
      ['a version range instead of a version', { version: '^1.4.2' }, 'version'],
      ['an arch with capitals', { arch: 'AMD64' }, 'arch'],
      ['a url with spaces', { url: 'acme gateway' }, 'url'],
      ['a runtime that is a list', { runtime: ['x'] }, 'runtime'],
    ])('refuses %s with 400 naming the field', async (_what, change, field) => {
      const response = await call('PUT', '/v1/orgs/acme/services/bad', {
        auth: ada,
        body: { ...gateway, ...change },
      });
      expect(response.status).toBe(400);
      expect(fields(response.body)).toEqual([field]);
    });

    it('lets org members and the org nodes read services but only org admins write them', async () => {
      expect((await call('PUT', '/v1/orgs/acme/services/gw-bob', { auth: bob, body: gateway })).status).toBe(
        403,
      );
      expect((await call('DELETE', '/v1/orgs/acme/services/gw-142', { auth: bob })).status).toBe(403);
      expect(
        (await call('PUT', '/v1/orgs/acme/services/gw-node', { auth: node, body: gateway })).status,
      ).toBe(403);
      expect((await call('GET', '/v1/orgs/acme/services/gw-142', { auth: node })).status).toBe(200);
      expect((await call('GET', '/v1/orgs/acme/services', { auth: node })).status).toBe(200);
    });

    it('keeps services of one org from another', async () => {
      expect((await call('GET', '/v1/orgs/acme/services', { auth: bea })).status).toBe(403);
      expect((await call('GET', '/v1/orgs/acme/services/gw-142', { auth: bea })).status).toBe(403);
      expect((await call('PUT', '/v1/orgs/acme/services/gw-142', { auth: bea, body: gateway })).status).toBe(
        403,
      );
      expect((await call('DELETE', '/v1/orgs/acme/services/gw-142', { auth: bea })).status).toBe(403);
      expect((await call('GET', '/v1/orgs/beta/services', { auth: bea })).body).toEqual({
        items: [],
        total: 0,
      });
    });
  });

  describe('deployment policies', () => {
    it('creates with 201, replaces with 200, lists, shows and deletes a deployment policy', async () => {
      const created = await call('PUT', '/v1/orgs/acme/deployment-policies/web-eu', {
        auth: ada,
        body: webPolicy,
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        org: 'acme',
        name: 'web-eu',
        description: null,
        ...webPolicy,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });

      const replaced = await call('PUT', '/v1/orgs/acme/deployment-policies/web-eu', {
        auth: ada,
        body: { project: 'web', service: webPolicy.service, placement: { mode: 'all' } },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ properties: [], constraints: [], placement: { mode: 'all' } });

      await call('PUT', '/v1/orgs/acme/deployment-policies/api', { auth: ada, body: webPolicy });
      const list = await call('GET', '/v1/orgs/acme/deployment-policies', { auth: bob });
      expect(list.body).toMatchObject({ total: 2, items: [{ name: 'api' }, { name: 'web-eu' }] });
      expect(
        (await call('GET', '/v1/orgs/acme/deployment-policies/api', { auth: bob })).body.placement,
      ).toEqual({
        mode: 'replicas',
        replicas: 2,
      });

      expect((await call('DELETE', '/v1/orgs/acme/deployment-policies/api', { auth: ada })).status).toBe(204);
      expect((await call('GET', '/v1/orgs/acme/deployment-policies/api', { auth: ada })).status).toBe(404);
      expect((await call('DELETE', '/v1/orgs/acme/deployment-policies/api', { auth: ada })).status).toBe(404);
    });

    it.each(['^1.2', '>=1.2.0 <2.0.0', '1.x || >=2.5.0', '*', '[1.0.0,INFINITY)', '(1.0,2.0]'])(
      'accepts the semver range or Open Horizon interval %s, and keeps it as written',
      async (versionRange) => {
        const response = await call('PUT', '/v1/orgs/acme/deployment-policies/range-ok', {
          auth: ada,
          body: { ...webPolicy, service: { ...webPolicy.service, versionRange } },
        });
        expect([200, 201]).toContain(response.status);
        expect(response.body.service.versionRange).toBe(versionRange);
      },
    );

    it.each([
      [
        'a version range that is not semver',
        { service: { ...webPolicy.service, versionRange: 'latest-ish' } },
        'service.versionRange',
      ],
      [
        'an empty version range',
        { service: { ...webPolicy.service, versionRange: '' } },
        'service.versionRange',
      ],
      [
        'an interval no version lies in',
        { service: { ...webPolicy.service, versionRange: '[2.0.0,1.0.0)' } },
        'service.versionRange',
      ],
      [
        'an interval without its closing bracket',
        { service: { ...webPolicy.service, versionRange: '[1.0.0,INFINITY' } },
        'service.versionRange',
      ],
      ['replicas missing with mode replicas', { placement: { mode: 'replicas' } }, 'placement.replicas'],
      ['zero replicas', { placement: { mode: 'replicas', replicas: 0 } }, 'placement.replicas'],
      ['fractional replicas', { placement: { mode: 'replicas', replicas: 1.5 } }, 'placement.replicas'],
      ['replicas with mode all', { placement: { mode: 'all', replicas: 3 } }, 'placement.replicas'],
      ['an unknown placement mode', { placement: { mode: 'some' } }, 'placement.mode'],
      ['a constraint over 1000 characters', { constraints: ['x'.repeat(1001)] }, 'constraints'],
      ['a constraint that is not a string', { constraints: [42] }, 'constraints'],
      ['a property without a name', { properties: [{ value: 'gold' }] }, 'properties.0.name'],
      [
        'a property value that is an object',
        { properties: [{ name: 'tier', value: { a: 1 } }] },
        'properties.0.value',
      ],
      [
        'an unknown property type',
        { properties: [{ name: 'tier', value: 'gold', type: 'colour' }] },
        'properties.0.type',
      ],
      ['a project that is not an identifier', { project: 'web site' }, 'project'],
      [
        'a service org that is not an identifier',
        { service: { ...webPolicy.service, org: 'a.b' } },
        'service.org',
      ],
    ])('refuses %s with 400 naming the field', async (_what, change, field) => {
      const response = await call('PUT', '/v1/orgs/acme/deployment-policies/bad', {
        auth: ada,
        body: { ...webPolicy, ...change },
      });
      expect(response.status).toBe(400);
      expect(fields(response.body)).toEqual([field]);
      expect(response.body.message).toContain(field);
    });

    it('lets org members read deployment policies but only org admins write them; nodes get 403', async () => {
      expect(
        (await call('PUT', '/v1/orgs/acme/deployment-policies/bobs', { auth: bob, body: webPolicy })).status,
      ).toBe(403);
      expect((await call('DELETE', '/v1/orgs/acme/deployment-policies/web-eu', { auth: bob })).status).toBe(
        403,
      );
      expect((await call('GET', '/v1/orgs/acme/deployment-policies/web-eu', { auth: bob })).status).toBe(200);
      expect((await call('GET', '/v1/orgs/acme/deployment-policies', { auth: node })).status).toBe(403);
    });

    it('keeps deployment policies of one org from another', async () => {
      expect((await call('GET', '/v1/orgs/acme/deployment-policies', { auth: bea })).status).toBe(403);
      expect((await call('GET', '/v1/orgs/acme/deployment-policies/web-eu', { auth: bea })).status).toBe(403);
      expect(
        (await call('PUT', '/v1/orgs/acme/deployment-policies/web-eu', { auth: bea, body: webPolicy }))
          .status,
      ).toBe(403);
      expect((await call('DELETE', '/v1/orgs/acme/deployment-policies/web-eu', { auth: bea })).status).toBe(
        403,
      );
    });

    it('refuses a policy name that is not an identifier with 400', async () => {
      const response = await call('PUT', '/v1/orgs/acme/deployment-policies/a.b', {
        auth: ada,
        body: webPolicy,
      });
      expect(response.status).toBe(400);
      expect(fields(response.body)).toEqual(['name']);
    });
  });

  it('publishes service and deployment policy changes, and nothing for refused ones', async () => {
    await call('POST', '/v1/orgs', { auth: root, body: { id: 'feed' } });
    await call('PUT', '/v1/orgs/feed/services/s1', { auth: root, body: gateway });
    await call('PUT', '/v1/orgs/feed/services/s1', { auth: root, body: { ...gateway, version: '1.4.3' } });
    await call('PUT', '/v1/orgs/feed/services/s2', { auth: root, body: { ...gateway, version: '1.4.3' } });
    await call('DELETE', '/v1/orgs/feed/services/s1', { auth: root });
    await call('PUT', '/v1/orgs/feed/deployment-policies/p1', { auth: root, body: webPolicy });
    await call('PUT', '/v1/orgs/feed/deployment-policies/p1', {
      auth: root,
      body: { ...webPolicy, project: 'api' },
    });
    await call('DELETE', '/v1/orgs/feed/deployment-policies/p1', { auth: root });

    const messages = await eventually(() =>
      readStream(bus, STREAMS.changes.name, {
        count: 7,
        filterSubject: 'careen.changes.feed.*.*',
        timeoutMs: 5_000,
      }),
    );
    expect(messages.map((message) => [message.subject, message.body.operation])).toEqual([
      ['careen.changes.feed.org.feed', 'created'],
      ['careen.changes.feed.service.s1', 'created'],
      ['careen.changes.feed.service.s1', 'updated'],
      ['careen.changes.feed.service.s1', 'deleted'],
      ['careen.changes.feed.deploymentPolicy.p1', 'created'],
      ['careen.changes.feed.deploymentPolicy.p1', 'updated'],
      ['careen.changes.feed.deploymentPolicy.p1', 'deleted'],
    ]);
    expect(messages[2]?.body.data).toMatchObject({ id: 's1', version: '1.4.3' });
    const info = await bus.jsm.streams.info(STREAMS.changes.name, {
      subjects_filter: 'careen.changes.feed.>',
    });
    expect(info.state.subjects).toEqual({
      'careen.changes.feed.org.feed': 1,
      'careen.changes.feed.service.s1': 3,
      'careen.changes.feed.deploymentPolicy.p1': 3,
    });
  });
});
