import { basic, http, itRefusesBadBodies, useTestInfra, type BodyEndpoint } from '@careen/testing';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const root = basic('root', 'root', 'root-password-1');
const nodeM1 = basic('acme', 'm1', 'matrix-token-1');

const endpoints: BodyEndpoint[] = [
  {
    method: 'PUT',
    path: '/v1/orgs/acme/nodes/m1',
    auth: root,
    valid: { token: 'matrix-token-1', name: 'M1' },
    wrongTypes: {
      token: 12345678,
      name: 42,
      pattern: ['x'],
      policy: 'soon',
      labels: { zone: 5 },
      tags: 'lab',
      rack: true,
    },
    required: [],
  },
  {
    method: 'PATCH',
    path: '/v1/orgs/acme/nodes/m1',
    auth: root,
    valid: { name: 'M1' },
    wrongTypes: { name: null, pattern: 7, labels: ['a'], tags: [1], rack: {}, schedulable: 'yes' },
    required: [],
  },
  {
    method: 'PUT',
    path: '/v1/orgs/acme/nodes/m1/policy',
    auth: root,
    valid: { properties: [{ name: 'zone', value: 'eu-1' }], constraints: ['tier == gold'] },
    wrongTypes: { properties: 'zone=eu-1', constraints: 'tier == gold' },
    required: [],
  },
  {
    method: 'PUT',
    path: '/v1/orgs/acme/nodes/m1/status',
    auth: nodeM1,
    valid: { agentVersion: { package: '2.31.0' }, workloads: [] },
    wrongTypes: { agentVersion: '2.31.0', workloads: {} },
    required: [],
  },
  {
    method: 'PUT',
    path: '/v1/orgs/acme/nodes/m1/workloads',
    auth: root,
    valid: { workloads: [] },
    wrongTypes: { workloads: 'none' },
    required: ['workloads'],
  },
  {
    method: 'PUT',
    path: '/v1/orgs/acme/services/s1',
    auth: root,
    valid: { url: 'acme.gateway', version: '1.0.0', arch: 'amd64', runtime: { kind: 'simulated' } },
    wrongTypes: { url: 5, version: 1, arch: [], runtime: 'process', description: 3 },
    required: ['url', 'version', 'arch', 'runtime'],
  },
  {
    method: 'PUT',
    path: '/v1/orgs/acme/deployment-policies/p1',
    auth: root,
    valid: {
      project: 'web',
      service: { org: 'acme', url: 'acme.gateway', versionRange: '^1.0.0' },
      placement: { mode: 'all' },
    },
    wrongTypes: {
      description: 5,
      project: 1,
      service: 'acme.gateway',
      properties: {},
      constraints: 'tier == gold',
      placement: 'all',
    },
    required: ['project', 'service', 'placement'],
  },
  {
    method: 'POST',
    path: '/v1/auth/token',
    auth: undefined,
    valid: { org: 'acme', node: 'm1', token: 'matrix-token-1' },
    wrongTypes: { org: 1, node: 5, token: [] },
    required: [],
  },
];

describe('exchange registry: every new body-taking endpoint refuses bad input with a 4xx naming the problem', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    });
    await http(exchange.url, 'POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/m1', {
      auth: root,
      body: { token: 'matrix-token-1' },
    });
  });

  afterAll(() => exchange.close());

  itRefusesBadBodies(endpoints, () => exchange.url);

  it.each([
    ['a node token too short', 'PUT', '/v1/orgs/acme/nodes/m2', root, { token: 'short' }, 'token'],
    ['a label key with a space', 'PUT', '/v1/orgs/acme/nodes/m2', root, { labels: { 'a b': 'x' } }, 'labels'],
    ['a pattern with a space', 'PUT', '/v1/orgs/acme/nodes/m2', root, { pattern: 'my pattern' }, 'pattern'],
    [
      'a policy property value that is an object',
      'PUT',
      '/v1/orgs/acme/nodes/m2',
      root,
      { policy: { properties: [{ name: 'zone', value: { a: 1 } }] } },
      'policy.properties.0.value',
    ],
    [
      'a constraint over 1000 characters',
      'PUT',
      '/v1/orgs/acme/nodes/m1/policy',
      root,
      { constraints: ['x'.repeat(1001)] },
      'constraints',
    ],
    ['a null node name', 'PUT', '/v1/orgs/acme/nodes/m2', root, { name: null }, 'name'],
    [
      'a null schedulable flag',
      'PATCH',
      '/v1/orgs/acme/nodes/m1',
      root,
      { schedulable: null },
      'schedulable',
    ],
    [
      'an upgrade start that is not a timestamp',
      'PUT',
      '/v1/orgs/acme/nodes/m1/status',
      nodeM1,
      { agentVersion: { upgradeStart: 'yesterday' } },
      'agentVersion.upgradeStart',
    ],
    [
      'an actual workload without a service version',
      'PUT',
      '/v1/orgs/acme/nodes/m1/status',
      nodeM1,
      { workloads: [{ service: { org: 'acme', url: 'acme.gateway' } }] },
      'workloads.0.service.version',
    ],
    [
      'a desired workload with a bad deployment policy name',
      'PUT',
      '/v1/orgs/acme/nodes/m1/workloads',
      root,
      {
        workloads: [
          { deploymentPolicy: 'a b', service: { org: 'acme', url: 'acme.gateway', version: '1.0.0' } },
        ],
      },
      'workloads.0.deploymentPolicy',
    ],
  ])('refuses %s with 400 naming the field', async (_what, method, path, auth, body, field) => {
    const response = await http(exchange.url, method, path, { auth, body });
    expect(response.status).toBe(400);
    expect(response.body.details.fields.map((detail: { field: string }) => detail.field)).toEqual([field]);
  });

  it.each([
    ['GET', '/v1/orgs/acme/nodes/nobody', 404],
    ['PATCH', '/v1/orgs/acme/nodes/nobody', 404],
    ['DELETE', '/v1/orgs/acme/nodes/nobody', 404],
    ['PUT', '/v1/orgs/acme/nodes/nobody/policy', 404],
    ['PUT', '/v1/orgs/acme/nodes/nobody/workloads', 404],
    ['GET', '/v1/orgs/acme/nodes/nobody/workloads', 404],
    ['GET', '/v1/orgs/no-such-org/nodes', 404],
    ['GET', '/v1/orgs/acme/services/nothing', 404],
    ['GET', '/v1/orgs/acme/deployment-policies/nothing', 404],
    ['GET', '/v1/orgs/no-such-org/services', 404],
    ['GET', '/v1/orgs/no-such-org/deployment-policies', 404],
  ])('answers %s %s with %i in the error shape', async (method, path, status) => {
    const body =
      method === 'PUT' && path.endsWith('/workloads') ? { workloads: [] } : method === 'GET' ? undefined : {};
    const response = await http(exchange.url, method, path, { auth: root, body });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({
      statusCode: status,
      error: expect.any(String),
      message: expect.any(String),
    });
  });
});
