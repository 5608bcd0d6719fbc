import { basic, http, useTestInfra } from '@careen/testing';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { type ExchangeConfig } from './exchange.config';
import { exchangeService } from './exchange.service';

const root = basic('root', 'root', 'root-password-1');

interface BodyEndpoint {
  path: string;
  valid: Record<string, unknown>;
  /** field → a value of the wrong type */
  wrongTypes: Record<string, unknown>;
  required: string[];
}

const endpoints: BodyEndpoint[] = [
  {
    path: '/v1/orgs',
    valid: { id: 'valid-org', label: 'Valid' },
    wrongTypes: { id: 42, label: ['x'], upgradeDefaults: 'soon' },
    required: ['id'],
  },
  {
    path: '/v1/orgs/acme/users',
    valid: { username: 'valid-user', password: 'valid-password', role: 'user' },
    wrongTypes: { username: true, password: 12345678, role: 'emperor' },
    required: ['username', 'password', 'role'],
  },
  {
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

  describe.each(endpoints)('POST $path', (endpoint) => {
    it.each(Object.entries(endpoint.wrongTypes))(
      'names %s when it has the wrong type',
      async (field, value) => {
        const response = await post(endpoint.path, { body: { ...endpoint.valid, [field]: value } });
        expect(response.status).toBe(400);
        expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
        expect(response.body.message).toContain(field);
      },
    );

    it('names every missing required field at once', async () => {
      const response = await post(endpoint.path, { body: {} });
      expect(response.status).toBe(400);
      expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual(
        expect.arrayContaining(endpoint.required),
      );
    });

    it('refuses an unknown field, naming it', async () => {
      const response = await post(endpoint.path, { body: { ...endpoint.valid, isAdmin: true } });
      expect(response.status).toBe(400);
      expect(response.body.message).toContain('isAdmin');
    });

    it('answers 413 to a body over 1 MiB', async () => {
      const response = await post(endpoint.path, {
        body: { ...endpoint.valid, padding: 'x'.repeat(1024 * 1024 + 1) },
      });
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    });

    it('answers 400 to malformed JSON', async () => {
      const response = await post(endpoint.path, { rawBody: '{"id": "x",' });
      expect(response.status).toBe(400);
      expect(response.body.message).toContain('malformed JSON');
    });

    it.each([
      ['an array', '[]'],
      ['null', 'null'],
      ['a string', '"acme"'],
    ])('answers 400 to %s instead of an object', async (_what, raw) => {
      const response = await post(endpoint.path, { rawBody: raw });
      expect(response.status).toBe(400);
      expect(response.body.statusCode).toBe(400);
    });

    it('answers 400 when the body is not JSON at all', async () => {
      const response = await post(endpoint.path, {
        rawBody: 'id=acme',
        headers: { 'content-type': 'text/plain' },
      });
      expect(response.status).toBe(400);
    });
  });

  it.each([
    ['an org id with a dot', '/v1/orgs', { id: 'a.b' }, 'id'],
    ['an org id too long', '/v1/orgs', { id: 'x'.repeat(65) }, 'id'],
    [
      'a user name with a space',
      '/v1/orgs/acme/users',
      { username: 'a b', password: 'long-enough', role: 'user' },
      'username',
    ],
    [
      'a password too short',
      '/v1/orgs/acme/users',
      { username: 'shorty', password: 'short', role: 'user' },
      'password',
    ],
  ])('refuses %s with 400 naming the field', async (_what, path, body, field) => {
    const response = await post(path, { body });
    expect(response.status).toBe(400);
    expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual([field]);
  });

  it.each([
    ['GET', '/v1/orgs/no-such-org', 404],
    ['GET', '/v1/orgs/acme/users/nobody', 404],
    ['DELETE', '/v1/orgs/acme/users/nobody', 404],
    ['POST', '/v1/orgs/no-such-org/users', 404],
    ['GET', '/v1/no-such-route', 404],
  ])('answers %s %s with %i in the error shape', async (method, path, status) => {
    const body =
      method === 'POST' ? { username: 'someone', password: 'long-enough', role: 'user' } : undefined;
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
