import { basic, http, itRefusesBadBodies, useTestInfra, type BodyEndpoint } from '@careen/testing';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { type ExchangeConfig } from './exchange.config';
import { exchangeService } from './exchange.service';

const root = basic('root', 'root', 'root-password-1');

const endpoints: BodyEndpoint[] = [
  {
    method: 'POST',
    auth: root,
    path: '/v1/orgs',
    valid: { id: 'valid-org', label: 'Valid' },
    wrongTypes: { id: 42, label: ['x'], upgradeDefaults: 'soon' },
    required: ['id'],
  },
  {
    method: 'POST',
    auth: root,
    path: '/v1/orgs/acme/users',
    valid: { username: 'valid-user', password: 'valid-password', role: 'operator' },
    wrongTypes: { username: true, password: 12345678, role: 'emperor' },
    required: ['username', 'password', 'role'],
  },
  {
    method: 'POST',
    path: '/v1/auth/token',
    valid: { org: 'root', username: 'root', password: 'root-password-1' },
    wrongTypes: { org: 1, username: {}, password: null },
    required: ['org', 'username', 'password'],
  },
];

describe('exchange: every body-taking endpoint refuses bad input with a 4xx naming the problem', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    });
    await http(exchange.url, 'POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
  });

  afterAll(() => exchange.close());

  const post = (path: string, options: Parameters<typeof http>[3]) =>
    http(exchange.url, 'POST', path, { auth: root, ...options });

  itRefusesBadBodies(endpoints, () => exchange.url);

  it.each([
    ['an org id with a dot', '/v1/orgs', { id: 'a.b' }, 'id'],
    ['an org id too long', '/v1/orgs', { id: 'x'.repeat(65) }, 'id'],
    [
      'a user name with a space',
      '/v1/orgs/acme/users',
      { username: 'a b', password: 'long-enough', role: 'operator' },
      'username',
    ],
    [
      'a password too short',
      '/v1/orgs/acme/users',
      { username: 'shorty', password: 'short', role: 'operator' },
      'password',
    ],
  ])('refuses %s with 400 naming the field', async (_what, path, body, field) => {
    const response = await post(path, { body });
    expect(response.status).toBe(400);
    expect(response.body.details.fields.map((detail: { field: string }) => detail.field)).toEqual([field]);
  });

  it.each([
    ['GET', '/v1/orgs/no-such-org', 404],
    ['GET', '/v1/orgs/acme/users/nobody', 404],
    ['DELETE', '/v1/orgs/acme/users/nobody', 404],
    ['POST', '/v1/orgs/no-such-org/users', 404],
    ['GET', '/v1/no-such-route', 404],
  ])('answers %s %s with %i in the error shape', async (method, path, status) => {
    const body =
      method === 'POST' ? { username: 'someone', password: 'long-enough', role: 'operator' } : undefined;
    const response = await http(exchange.url, method, path, { auth: root, body });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({
      statusCode: status,
      error: expect.any(String),
      message: expect.any(String),
    });
  });

  it('answers 401 to malformed Basic credentials', async () => {
    const response = await http(exchange.url, 'GET', '/v1/orgs/acme', {
      headers: { authorization: 'Basic !!!not-base64' },
    });
    expect(response.status).toBe(401);
    expect(response.body.statusCode).toBe(401);
  });
});
