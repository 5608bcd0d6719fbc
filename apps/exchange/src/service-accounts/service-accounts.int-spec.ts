import { startServiceInProcess, type InProcessService } from '@careen/service';
import {
  bearer,
  http,
  ROOT_PASSWORD,
  seededUser,
  seedExchange,
  useTestInfra,
  withClient,
  type Credentials,
} from '@careen/testing';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const admin = seededUser('acme', 'ada');
const operator = seededUser('acme', 'otto');

interface Key {
  id: string;
  key: string;
  state: string;
  scopes: string[];
  expiresAt: string;
  lastUsedAt: string | null;
}

describe('service accounts and their keys', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const call = (method: string, path: string, body?: unknown, auth: Credentials = admin) =>
    http(exchange.url, method, path, { auth, body });
  const accounts = '/v1/orgs/acme/service-accounts';
  const makeKey = async (account: string, body: unknown): Promise<Key> => {
    const made = await call('POST', `${accounts}/${account}/keys`, body);
    expect(made.status).toBe(201);
    return made.body as Key;
  };

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await seedExchange(exchange.url, {
      acme: { users: { ada: 'orgAdmin', otto: 'operator' }, nodes: ['n1'] },
      beta: {},
    });
    expect((await call('POST', accounts, { name: 'ci', description: 'the pipeline' })).status).toBe(201);
  });

  afterAll(() => exchange.close());

  it('makes an account once, lists and reads it, and is for org admins only', async () => {
    const again = await call('POST', accounts, { name: 'ci' });
    expect([again.status, again.body.details.code]).toEqual([409, 'SERVICE_ACCOUNT_EXISTS']);
    const listed = await call('GET', accounts);
    expect(listed.body).toMatchObject({
      items: [{ org: 'acme', name: 'ci', description: 'the pipeline', createdBy: 'acme/ada', keys: [] }],
      total: 1,
    });
    expect((await call('GET', `${accounts}/nobody`)).body.details.code).toBe('SERVICE_ACCOUNT_NOT_FOUND');
    const byOperator = await call('POST', accounts, { name: 'sneaky' }, operator);
    expect(byOperator.status).toBe(403);
  });

  it('shows a key once, stores only its digest, and lets it act within its scopes', async () => {
    const key = await makeKey('ci', { scopes: ['nodes:read', 'policies:write'], expiresInDays: 30 });
    expect(key).toMatchObject({
      state: 'active',
      scopes: ['nodes:read', 'policies:write'],
      lastUsedAt: null,
    });
    expect(key.key).toMatch(new RegExp(`^ck_${key.id}_`));
    const stored = await withClient(infra.databaseUrl, (client) =>
      client.query('SELECT secret_digest FROM exchange.api_keys WHERE id = $1', [key.id]),
    );
    expect(JSON.stringify(stored.rows)).not.toContain(key.key.slice(20));
    expect((await call('GET', `${accounts}/ci`)).body.keys[0]).not.toHaveProperty('key');

    const asKey = bearer(key.key);
    expect((await call('GET', '/v1/whoami', undefined, asKey)).body).toEqual({
      kind: 'service',
      org: 'acme',
      account: 'ci',
      key: key.id,
      scopes: ['nodes:read', 'policies:write'],
    });
    expect((await call('GET', '/v1/orgs/acme/nodes', undefined, asKey)).status).toBe(200);
    const write = await call('PATCH', '/v1/orgs/acme/nodes/n1', { name: 'renamed' }, asKey);
    expect([write.status, write.body.message]).toEqual([
      403,
      `key ${key.id} of acme/sa:ci lacks the scope nodes:write`,
    ]);
    const policy = await call('PUT', '/v1/orgs/acme/deployment-policies/by-key', { service: 'x' }, asKey);
    expect(policy.status).not.toBe(403);
    for (const [method, path] of [
      ['GET', accounts],
      ['POST', '/v1/orgs/acme/users'],
      ['GET', '/v1/orgs/beta/nodes'],
    ] as const)
      expect((await call(method, path, method === 'POST' ? {} : undefined, asKey)).status).toBe(403);
  });

  it('writes when a key was last used, at most once a minute', async () => {
    const key = await makeKey('ci', { scopes: ['nodes:read'] });
    const lastUsed = async () =>
      ((await call('GET', `${accounts}/ci`)).body.keys as Key[]).find((each) => each.id === key.id)!
        .lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(key.key));
    const first = await lastUsed();
    expect(Math.abs(Date.parse(first!) - Date.now())).toBeLessThan(10_000);
    await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(key.key));
    expect(await lastUsed()).toBe(first);
  });

  it('rotates a key: the previous one works for the overlap, then is refused as expired', async () => {
    const first = await makeKey('ci', { scopes: ['nodes:read'] });
    const rotated = await call('POST', `${accounts}/ci/keys/${first.id}/rotate`, { overlapSeconds: 600 });
    expect(rotated.status).toBe(201);
    const { key: second, previous } = rotated.body as { key: Key; previous: Key & { replacedBy: string } };
    expect(second.scopes).toEqual(['nodes:read']);
    expect(previous).toMatchObject({ id: first.id, state: 'active', replacedBy: second.id });
    expect(Math.abs(Date.parse(previous.expiresAt) - Date.now() - 600_000)).toBeLessThan(10_000);
    for (const each of [first, second])
      expect((await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(each.key))).status).toBe(200);

    const third = (await call('POST', `${accounts}/ci/keys/${second.id}/rotate`, { overlapSeconds: 0 })).body
      .key as Key;
    const ended = await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(second.key));
    expect([ended.status, ended.body.message]).toEqual([
      401,
      expect.stringMatching(`^key ${second.id} expired at `),
    ]);
    expect((await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(third.key))).status).toBe(200);
    const again = await call('POST', `${accounts}/ci/keys/${second.id}/rotate`, { overlapSeconds: 0 });
    expect([again.status, again.body.details.code]).toEqual([409, 'API_KEY_ENDED']);
  });

  it('refuses a revoked key at once, and every key of a removed account', async () => {
    const key = await makeKey('ci', { scopes: ['nodes:read'] });
    const revoked = await call('DELETE', `${accounts}/ci/keys/${key.id}`);
    expect(revoked.body).toMatchObject({ id: key.id, state: 'revoked' });
    const refused = await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(key.key));
    expect([refused.status, refused.body.message]).toEqual([401, `key ${key.id} was revoked`]);

    expect((await call('POST', accounts, { name: 'short-lived' })).status).toBe(201);
    const doomed = await makeKey('short-lived', { scopes: ['nodes:read'] });
    expect((await call('DELETE', `${accounts}/short-lived`)).status).toBe(204);
    expect((await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(doomed.key))).status).toBe(401);
    expect((await call('DELETE', `${accounts}/short-lived/keys/${doomed.id}`)).status).toBe(404);
  });

  it('refuses a key past its end, and a key it never made', async () => {
    const key = await makeKey('ci', { scopes: ['nodes:read'] });
    await withClient(infra.databaseUrl, (client) =>
      client.query(`UPDATE exchange.api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        key.id,
      ]),
    );
    expect((await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(key.key))).status).toBe(401);
    const forged = `ck_${key.id}_${'A'.repeat(43)}`;
    const wrong = await call('GET', '/v1/orgs/acme/nodes', undefined, bearer(forged));
    expect([wrong.status, wrong.body.message]).toEqual([401, 'invalid credentials']);
    const malformed = await call('GET', '/v1/orgs/acme/nodes', undefined, bearer('ck_not-a-key'));
    expect(malformed.status).toBe(401);
  });

  it.each([
    ['no scopes', {}, 'scopes'],
    ['an empty list', { scopes: [] }, 'scopes'],
    ['an unknown scope', { scopes: ['users:write'] }, 'scopes'],
    ['a repeated scope', { scopes: ['nodes:read', 'nodes:read'] }, 'scopes'],
    ['too long a life', { scopes: ['nodes:read'], expiresInDays: 366 }, 'expiresInDays'],
    ['an unknown field', { scopes: ['nodes:read'], selector: {} }, 'selector'],
  ])('refuses a key with %s, naming the field', async (_label, body, field) => {
    const refused = await call('POST', `${accounts}/ci/keys`, body);
    expect(refused.status).toBe(400);
    expect(refused.body.details.fields.map((each: { field: string }) => each.field)).toContain(field);
  });

  it('refuses a rotation without an overlap or with one past a week', async () => {
    const key = await makeKey('ci', { scopes: ['nodes:read'] });
    for (const body of [{}, { overlapSeconds: 604_801 }, { overlapSeconds: -1 }])
      expect((await call('POST', `${accounts}/ci/keys/${key.id}/rotate`, body)).status).toBe(400);
  });
});
