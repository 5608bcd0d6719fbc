import { startServiceInProcess, type InProcessService } from '@careen/service';
import {
  http,
  ROOT_PASSWORD,
  seededNode,
  seededRoot as root,
  seededUser,
  seedExchange,
  useTestInfra,
  withClient,
  type Credentials,
} from '@careen/testing';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const admin = seededUser('acme', 'ada');
const bob = seededUser('acme', 'bob');

describe('HA groups', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const call = (method: string, path: string, body?: unknown, auth: Credentials = admin) =>
    http(exchange.url, method, path, { auth, body });
  const register = (id: string, auth: Credentials = admin) =>
    call('PUT', `/v1/orgs/acme/nodes/${id}`, { token: `${id}-token-0123456789` }, auth);
  const group = (name: string, members: string[]) =>
    call('POST', '/v1/orgs/acme/hagroups', { name, description: `group ${name}`, members });

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await seedExchange(exchange.url, {
      acme: { users: { ada: 'orgAdmin', bob: 'operator' }, nodes: ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'] },
      beta: {},
    });
    await register('bobs-node', bob);
    await call('PUT', '/v1/orgs/beta/nodes/foreign', { token: 'foreign-token-0123456789' }, root);
  });

  afterEach(async () => {
    // Invariant 3: every group's members are exactly the nodes whose haGroup names it, and
    // no node is in two groups (checked from both sides through the API).
    const groups = (await call('GET', '/v1/orgs/acme/hagroups')).body.items as {
      name: string;
      members: string[];
    }[];
    const nodes = (await call('GET', '/v1/orgs/acme/nodes')).body.items as {
      id: string;
      haGroup: string | null;
    }[];
    const fromNodes = new Map<string, string[]>();
    for (const node of nodes)
      if (node.haGroup) fromNodes.set(node.haGroup, [...(fromNodes.get(node.haGroup) ?? []), node.id].sort());
    for (const { name, members } of groups) expect([...members].sort()).toEqual(fromNodes.get(name) ?? []);
    expect([...fromNodes.keys()].every((name) => groups.some((g) => g.name === name))).toBe(true);
    const everyMember = groups.flatMap((g) => g.members);
    expect(new Set(everyMember).size).toBe(everyMember.length);
    await withClient(infra.databaseUrl, (client) =>
      client.query('UPDATE exchange.nodes SET ha_group = NULL'),
    ).then(() => withClient(infra.databaseUrl, (client) => client.query('DELETE FROM exchange.ha_groups')));
  });

  afterAll(() => exchange.close());

  it('forms a group and records membership in the group and in every member node', async () => {
    const created = await group('pair', ['n1', 'n2']);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      org: 'acme',
      name: 'pair',
      description: 'group pair',
      members: ['n1', 'n2'],
    });
    expect((await call('GET', '/v1/orgs/acme/nodes/n1')).body.haGroup).toBe('pair');
    expect((await call('GET', '/v1/orgs/acme/nodes?haGroup=pair')).body.total).toBe(2);
  });

  it('refuses with 409 a node already in another group, naming the node and the group, and changes nothing', async () => {
    await group('first', ['n1', 'n2']);
    const second = await group('second', ['n3', 'n2']);
    expect(second.status).toBe(409);
    expect(second.body.message).toBe(
      'node "n2" is already in HA group "first"; a node may be in one HA group only',
    );
    expect(second.body.details).toMatchObject({ node: 'n2', group: 'first' });
    expect((await call('GET', '/v1/orgs/acme/hagroups/second')).status).toBe(404);
    expect((await call('GET', '/v1/orgs/acme/nodes/n3')).body.haGroup).toBeNull();
  });

  it('lets exactly one of two concurrent requests claiming one node win', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([
        group(`race-a-${round}`, ['n4', 'n5']),
        group(`race-b-${round}`, ['n6', 'n5']),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      await withClient(infra.databaseUrl, async (client) => {
        await client.query('UPDATE exchange.nodes SET ha_group = NULL');
        await client.query('DELETE FROM exchange.ha_groups');
      });
    }
  });

  it('replaces the members with PUT: leavers are freed, newcomers claimed', async () => {
    await group('rolling', ['n1', 'n2']);
    const replaced = await call('PUT', '/v1/orgs/acme/hagroups/rolling', {
      description: 'now three',
      members: ['n2', 'n3', 'n4'],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ description: 'now three', members: ['n2', 'n3', 'n4'] });
    expect((await call('GET', '/v1/orgs/acme/nodes/n1')).body.haGroup).toBeNull();
  });

  it('empties a group with PUT and frees its members with DELETE', async () => {
    await group('short-lived', ['n1', 'n2']);
    expect((await call('PUT', '/v1/orgs/acme/hagroups/short-lived', { members: [] })).body.members).toEqual(
      [],
    );
    await call('PUT', '/v1/orgs/acme/hagroups/short-lived', { members: ['n3'] });
    expect((await call('DELETE', '/v1/orgs/acme/hagroups/short-lived')).status).toBe(204);
    expect((await call('GET', '/v1/orgs/acme/nodes/n3')).body.haGroup).toBeNull();
    expect((await call('GET', '/v1/orgs/acme/hagroups/short-lived')).status).toBe(404);
  });

  it('never touches the workloads of a node that joins or leaves', async () => {
    const workloads = {
      workloads: [{ deploymentPolicy: 'web', service: { org: 'acme', url: 'acme.web', version: '1.0.0' } }],
    };
    expect((await call('PUT', '/v1/orgs/acme/nodes/n1/workloads', workloads, root)).status).toBe(200);
    const before = (await call('GET', '/v1/orgs/acme/nodes/n1/workloads')).body;
    await group('steady', ['n1']);
    await call('DELETE', '/v1/orgs/acme/hagroups/steady');
    expect((await call('GET', '/v1/orgs/acme/nodes/n1/workloads')).body).toEqual(before);
  });

  it('requires the caller to be allowed to modify every listed node', async () => {
    const byBob = await call(
      'POST',
      '/v1/orgs/acme/hagroups',
      { name: 'bobs', members: ['bobs-node', 'n2'] },
      bob,
    );
    expect(byBob.status).toBe(403);
    expect((await call('GET', '/v1/orgs/acme/nodes/bobs-node')).body.haGroup).toBeNull();
    const own = await call(
      'POST',
      '/v1/orgs/acme/hagroups',
      { name: 'bobs-own', members: ['bobs-node'] },
      bob,
    );
    expect(own.status).toBe(201);
  });

  it('refuses unknown nodes and nodes of another org with 404 naming them', async () => {
    const response = await group('ghosts', ['n1', 'nobody', 'foreign']);
    expect(response.status).toBe(404);
    expect(response.body.message).toBe('no such node in org "acme": nobody, foreign');
  });

  it('refuses a duplicate group name with 409', async () => {
    await group('twice', ['n1']);
    expect((await group('twice', ['n2'])).status).toBe(409);
  });

  it('keeps nodes out of group management', async () => {
    const asNode = seededNode('acme', 'n1');
    expect(
      (await call('POST', '/v1/orgs/acme/hagroups', { name: 'by-node', members: ['n1'] }, asNode)).status,
    ).toBe(403);
  });

  it.each([
    [{ name: 'x', members: 'n1' }, 'members'],
    [{ name: 'x', members: ['n1', 'n1'] }, 'members'],
    [{ name: 'x', members: ['bad id'] }, 'members'],
    [{ name: 'has space', members: [] }, 'name'],
    [{ members: [] }, 'name'],
    [{ name: 'x' }, 'members'],
    [{ name: 'x', members: [], extra: 1 }, 'extra'],
    [{ name: 'x', members: [], description: 42 }, 'description'],
  ])('refuses %o with 400 naming %s', async (body, field) => {
    const response = await call('POST', '/v1/orgs/acme/hagroups', body);
    expect(response.status).toBe(400);
    expect(response.body.message).toContain(field);
  });
});
