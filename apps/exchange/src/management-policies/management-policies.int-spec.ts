import { startServiceInProcess, type InProcessService } from '@careen/service';
import {
  basic,
  eventually,
  http,
  ROOT_PASSWORD,
  seededNode,
  seededUser,
  seedExchange,
  useTestInfra,
  type Credentials,
} from '@careen/testing';
import { Client } from 'pg';
import { agentPackage } from '../agent-packages/agent-package.fixtures';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const admin = seededUser('acme', 'ada');
const viewer = seededUser('acme', 'vic');
const asNode = (id: string) => seededNode('acme', id);

describe('node management policies', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const call = (method: string, path: string, body?: unknown, auth: Credentials = admin) =>
    http(exchange.url, method, path, { auth, body });
  const publish = (name: string, body: Record<string, unknown>, auth: Credentials = admin) =>
    call('PUT', `/v1/orgs/acme/management-policies/${name}`, body, auth);
  const register = (id: string, node: Record<string, unknown>) =>
    call('PUT', `/v1/orgs/acme/nodes/${id}`, { token: `${id}-token-0123456789`, ...node });

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await seedExchange(exchange.url, { acme: { users: { ada: 'orgAdmin', vic: 'viewer' } } });
    const arch = (value: string) => ({
      policy: { properties: [{ name: 'careen.arch', value }], constraints: [] },
    });
    await register('amd-1', arch('amd64'));
    await register('amd-2', arch('amd64'));
    await register('arm-1', arch('arm64'));
    await register('gw-1', { pattern: 'gateway' });
    await register('picky', {
      policy: { properties: [{ name: 'careen.arch', value: 'amd64' }], constraints: ['purpose == upgrades'] },
    });
  });

  afterAll(() => exchange.close());

  it('creates a policy disabled by default, answers 201 then 200 on replace', async () => {
    const created = await publish('by-arch', {
      constraints: ['careen.arch == amd64'],
      agentUpgradePolicy: { atLeastVersion: '2.31.0' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'by-arch',
      enabled: false,
      owner: 'acme/ada',
      agentUpgradePolicy: { atLeastVersion: '2.31.0', start: 'now', duration: 0, action: 'install' },
    });
    const replaced = await publish('by-arch', { constraints: ['careen.arch == amd64'], label: 'amd only' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ label: 'amd only', agentUpgradePolicy: null });
  });

  it('refuses an enabled upgrade to a version no package has, naming the version and the archs', async () => {
    const upgrade = { nodes: ['amd-1', 'arm-1'], agentUpgradePolicy: { atLeastVersion: '9.9.9' } };
    const refused = await publish('never-published', { ...upgrade, enabled: true });
    expect([refused.status, refused.body.message]).toEqual([
      400,
      'agentUpgradePolicy.atLeastVersion: no agent package of version "9.9.9" is published, for any arch ' +
        '(it selects nodes of arch amd64, arm64); publish the package first (careen agentpackage publish), ' +
        'or publish the policy disabled until it is',
    ]);
    expect(refused.body.details).toMatchObject({
      code: 'NMP_NO_PACKAGE',
      version: '9.9.9',
      archs: ['amd64', 'arm64'],
    });
    expect((await call('GET', '/v1/orgs/acme/management-policies/never-published')).status).toBe(404);

    // A disabled draft may wait for its package, but is not enabled until the package exists.
    expect((await publish('never-published', upgrade)).status).toBe(201);
    const resumed = await call('POST', '/v1/orgs/acme/management-policies/never-published/resume', {});
    expect([resumed.status, resumed.body.details?.code]).toEqual([400, 'NMP_NO_PACKAGE']);

    const uploaded = await http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: basic('root', 'root', ROOT_PASSWORD),
      rawBody: await agentPackage('9.9.9'),
      headers: { 'content-type': 'application/gzip' },
    });
    expect(uploaded.status).toBe(201);
    expect((await publish('never-published', { ...upgrade, enabled: true })).status).toBe(200);
  });

  it('shows the nodes of an enabled upgrade whose package was removed as no-package, saying why', async () => {
    const root = basic('root', 'root', ROOT_PASSWORD);
    // No enabled policy may name the package by its version, or it could not be removed.
    await publish('never-published', { nodes: ['amd-1'], agentUpgradePolicy: { atLeastVersion: '9.9.9' } });
    expect(
      (await publish('follows-current', { nodes: ['amd-1', 'arm-1'], enabled: true, agentUpgradePolicy: {} }))
        .status,
    ).toBe(201);
    await call(
      'PUT',
      '/v1/orgs/acme/nodes/amd-1/managementStatus/follows-current',
      { status: 'successful', version: '9.9.9' },
      asNode('amd-1'),
    );
    const listed = await call('GET', '/v1/agent-packages', undefined, root);
    for (const each of listed.body.items as { version: string }[])
      expect((await call('DELETE', `/v1/agent-packages/${each.version}`, undefined, root)).status).toBe(204);

    const rollup = await call('GET', '/v1/orgs/acme/management-policies/follows-current/status');
    expect(rollup.body).toMatchObject({
      counts: { successful: 1, 'no-package': 1 },
      missingPackage: 'no agent package is published, for any arch (it selects nodes of arch amd64, arm64)',
      noPackage: ['arm-1'],
    });
    await publish('follows-current', { nodes: ['amd-1', 'arm-1'], agentUpgradePolicy: {} });
    const disabled = await call('GET', '/v1/orgs/acme/management-policies/follows-current/status');
    expect(disabled.body).toMatchObject({ missingPackage: null, noPackage: [] });
    expect(disabled.body.counts).not.toHaveProperty('no-package');
  });

  it('lists the nodes a policy applies to, selected by policy both ways', async () => {
    await publish('amd', { constraints: ['careen.arch == amd64'] });
    expect((await call('GET', '/v1/orgs/acme/management-policies/amd/nodes')).body).toEqual({
      enabled: false,
      items: ['amd-1', 'amd-2'],
      total: 2,
    });
    await publish('amd-upgrades', {
      constraints: ['careen.arch == amd64'],
      properties: [{ name: 'purpose', value: 'upgrades' }],
    });
    expect((await call('GET', '/v1/orgs/acme/management-policies/amd-upgrades/nodes')).body.items).toEqual([
      'amd-1',
      'amd-2',
      'picky',
    ]);
  });

  it('selects by pattern and by node list', async () => {
    await publish('gateways', { patterns: ['gateway'] });
    expect((await call('GET', '/v1/orgs/acme/management-policies/gateways/nodes')).body.items).toEqual([
      'gw-1',
    ]);
    await publish('listed', { nodes: ['arm-1', 'amd-2'] });
    expect((await call('GET', '/v1/orgs/acme/management-policies/listed/nodes')).body.items).toEqual([
      'amd-2',
      'arm-1',
    ]);
  });

  it('refuses to publish an enabled policy that selects every node without allowDisruptive', async () => {
    const everything = await publish('everything', { enabled: true });
    expect(everything.status).toBe(400);
    expect(everything.body.message).toContain('allowDisruptive');
    const star = await publish('star', { enabled: true, patterns: ['*'] });
    expect(star.status).toBe(400);
    expect((await call('GET', '/v1/orgs/acme/management-policies/star')).status).toBe(404);

    const confirmed = await publish('star', { enabled: true, patterns: ['*'], allowDisruptive: true });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body).not.toHaveProperty('allowDisruptive');
    expect((await publish('quiet', { enabled: false })).status).toBe(201);
  });

  it('refuses a bad constraint with 400 naming its position and token', async () => {
    const response = await publish('broken', { constraints: ['careen.arch == amd64', 'careen.cpus >= '] });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('constraints[1]');
    expect(response.body.message).toMatch(/position \d+/);
  });

  it.each([
    [{ enabled: 'yes' }, 'enabled'],
    [{ agentUpgradePolicy: { atLeastVersion: 'latest' } }, 'atLeastVersion'],
    [{ agentUpgradePolicy: { start: '2026-12-01 02:00' } }, 'start'],
    [{ agentUpgradePolicy: { duration: -5 } }, 'duration'],
    [{ agentUpgradePolicy: { action: 'uninstall' } }, 'action'],
    [{ agentUpgradePolicy: { surprise: true } }, 'surprise'],
    [{ patterns: ['a b'] }, 'pattern'],
    [{ nodes: ['ok', 'ok'] }, 'nodes'],
    [{ properties: [{ name: 'cpus', value: 'four', type: 'int' }] }, 'properties[0]'],
    [{ failureThreshold: 0 }, 'failureThreshold'],
    [{ owner: 'someone' }, 'owner'],
  ])('refuses %o with 400 naming %s', async (body, field) => {
    const response = await publish('bad-input', body);
    expect(response.status).toBe(400);
    expect(response.body.message).toContain(field);
  });

  it('takes allowDowngrade only with an exact version, naming the field, and keeps it for the agents', async () => {
    for (const agentUpgradePolicy of [
      { allowDowngrade: true },
      { atLeastVersion: 'current', allowDowngrade: true },
    ]) {
      const refused = await publish('rollback', { nodes: ['amd-1'], agentUpgradePolicy });
      expect([refused.status, refused.body.details.fields]).toEqual([
        400,
        [
          {
            field: 'agentUpgradePolicy.atLeastVersion',
            problems: [
              'atLeastVersion must be an exact semantic version (1.2.3) when allowDowngrade is true, not "current" or left out',
            ],
          },
        ],
      ]);
    }
    const notBoolean = await publish('rollback', {
      agentUpgradePolicy: { atLeastVersion: '1.0.0', allowDowngrade: 'yes' },
    });
    expect([notBoolean.status, notBoolean.body.message]).toEqual([
      400,
      'invalid request: agentUpgradePolicy.allowDowngrade: allowDowngrade must be true or false',
    ]);
    expect((await call('GET', '/v1/orgs/acme/management-policies/rollback')).status).toBe(404);

    const exact = { atLeastVersion: '1.0.0', start: 'now', duration: 0, action: 'install' };
    const published = await publish('rollback', {
      nodes: ['amd-1'],
      agentUpgradePolicy: { atLeastVersion: '1.0.0', allowDowngrade: true },
    });
    expect([published.status, published.body.agentUpgradePolicy]).toEqual([
      201,
      { ...exact, allowDowngrade: true },
    ]);
    const read = await call('GET', '/v1/orgs/acme/management-policies/rollback', undefined, asNode('amd-1'));
    expect(read.body.agentUpgradePolicy).toEqual({ ...exact, allowDowngrade: true });
    // The change feed has it once its tail has caught up with the commit.
    await eventually(async () => {
      const feed = await call('GET', '/v1/orgs/acme/changes?since=0&limit=1000', undefined, asNode('amd-1'));
      const changes = feed.body.changes as { resourceId: string; data?: Record<string, unknown> }[];
      expect(changes.filter((change) => change.resourceId === 'rollback').at(-1)?.data).toMatchObject({
        agentUpgradePolicy: { ...exact, allowDowngrade: true },
      });
    });

    // Without the flag (or with it false) nothing changes: it is not stored, and `current` is fine.
    const upOnly = await publish('rollback', {
      nodes: ['amd-1'],
      agentUpgradePolicy: { atLeastVersion: 'current', allowDowngrade: false },
    });
    expect([upOnly.status, upOnly.body.agentUpgradePolicy]).toEqual([
      200,
      { ...exact, atLeastVersion: 'current' },
    ]);
  });

  it('refuses a policy name that is not an identifier, and non-admins', async () => {
    expect((await publish('has.dot', {})).status).toBe(400);
    expect((await publish('by-viewer', {}, viewer)).status).toBe(403);
    expect((await call('GET', '/v1/orgs/acme/management-policies', undefined, viewer)).status).toBe(200);
  });

  describe('management status', () => {
    const status = (node: string, nmp: string, body: unknown, auth: Credentials = asNode(node)) =>
      call('PUT', `/v1/orgs/acme/nodes/${node}/managementStatus/${nmp}`, body, auth);

    it('is written by the node itself and read back', async () => {
      await publish('rollout', { nodes: ['amd-1', 'amd-2'], enabled: true });
      const written = await status('amd-1', 'rollout', {
        status: 'downloading',
        version: '2.31.0',
        startTime: '2026-12-01T02:00:00Z',
      });
      expect(written.status).toBe(200);
      const read = await call('GET', '/v1/orgs/acme/nodes/amd-1/managementStatus/rollout');
      expect(read.body).toMatchObject({
        node: 'amd-1',
        nmp: 'rollout',
        status: 'downloading',
        version: '2.31.0',
      });
    });

    it("refuses another node's status and admin writes other than reset", async () => {
      await publish('guarded', { nodes: ['amd-1'] });
      expect((await status('amd-1', 'guarded', { status: 'successful' }, asNode('amd-2'))).status).toBe(403);
      expect((await status('amd-1', 'guarded', { status: 'successful' }, admin)).status).toBe(403);
      expect((await status('amd-1', 'guarded', { status: 'reset' }, admin)).status).toBe(200);
      expect((await status('amd-1', 'guarded', { status: 'reset' }, viewer)).status).toBe(403);
    });

    it('refuses an unknown status word, policy or node', async () => {
      await publish('words', { nodes: ['amd-1'] });
      const word = await status('amd-1', 'words', { status: 'exploded' });
      expect(word.status).toBe(400);
      expect(word.body.message).toContain('status');
      expect((await status('amd-1', 'no-such-policy', { status: 'waiting' })).status).toBe(404);
    });

    it('rolls up the statuses of a policy by status', async () => {
      await publish('tally', { nodes: ['amd-1', 'amd-2', 'arm-1'] });
      await status('amd-1', 'tally', { status: 'successful' });
      await status('amd-2', 'tally', { status: 'successful' });
      await status('arm-1', 'tally', { status: 'ha-waiting' });
      const rollup = await call('GET', '/v1/orgs/acme/management-policies/tally/status');
      expect(rollup.body).toMatchObject({
        counts: { successful: 2, 'ha-waiting': 1 },
        total: 3,
        failed: 0,
        enabled: false,
      });
    });

    it('disables a policy once failureThreshold of its nodes have failed, recording why', async () => {
      await publish('bad-package', {
        nodes: ['amd-1', 'amd-2', 'arm-1'],
        enabled: true,
        failureThreshold: 2,
      });
      await status('amd-1', 'bad-package', { status: 'rolled-back', error: 'health check failed' });
      expect((await call('GET', '/v1/orgs/acme/management-policies/bad-package')).body.enabled).toBe(true);
      await status('amd-2', 'bad-package', { status: 'failed', error: 'install failed' });

      const policy = (await call('GET', '/v1/orgs/acme/management-policies/bad-package')).body;
      expect(policy.enabled).toBe(false);
      expect(policy.disabledReason).toBe(
        'disabled by the exchange: 2 of its nodes failed (failureThreshold 2)',
      );
    });

    it("is written while another node's write to the same policy is still open: a fleet's reports do not queue", async () => {
      await publish('fleet-wide', { nodes: ['amd-1', 'amd-2', 'arm-1'], enabled: true, failureThreshold: 1 });
      const open = new Client({ connectionString: infra.databaseUrl });
      await open.connect();
      try {
        // What an ordinary status write of another node holds on the policy until it commits.
        await open.query('BEGIN');
        await open.query(
          "SELECT 1 FROM exchange.management_policies WHERE org = 'acme' AND name = 'fleet-wide' FOR KEY SHARE",
        );
        const written = await Promise.race([
          Promise.all([
            status('amd-1', 'fleet-wide', { status: 'downloading' }),
            status('amd-2', 'fleet-wide', { status: 'failed', error: 'install failed' }),
          ]).then((answers) => answers.map((answer) => answer.status)),
          new Promise((resolve) => setTimeout(() => resolve('blocked behind the open write'), 5_000).unref()),
        ]);
        expect(written).toEqual([200, 200]);
      } finally {
        await open.query('ROLLBACK');
        await open.end();
      }
      expect((await call('GET', '/v1/orgs/acme/management-policies/fleet-wide')).body.enabled).toBe(false);
    });

    it('takes the same status written several times at once, as an agent retrying a slow write does', async () => {
      await publish('retried', { nodes: ['amd-1'], enabled: true });
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          status('amd-1', 'retried', { status: 'downloading', version: '2.0.0' }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 8 }, () => 200));
      expect((await call('GET', '/v1/orgs/acme/nodes/amd-1/managementStatus/retried')).body).toMatchObject({
        status: 'downloading',
        version: '2.0.0',
      });
    });

    it('counts failures written at the same moment against the threshold, every one of them', async () => {
      await publish('at-once', { nodes: ['amd-1', 'amd-2', 'arm-1'], enabled: true, failureThreshold: 3 });
      const answers = await Promise.all(
        ['amd-1', 'amd-2', 'arm-1'].map((node) =>
          status(node, 'at-once', { status: 'failed', error: 'bad' }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      const policy = (await call('GET', '/v1/orgs/acme/management-policies/at-once')).body;
      expect([policy.enabled, policy.disabledReason]).toEqual([
        false,
        'disabled by the exchange: 3 of its nodes failed (failureThreshold 3)',
      ]);
    });
  });

  it.each([
    [
      'PUT',
      '/v1/orgs/acme/nodes/amd-1/policy',
      { properties: [], constraints: ['careen.cpus >> 2'] },
      'constraints[0]',
    ],
    [
      'PUT',
      '/v1/orgs/acme/nodes/amd-1/policy',
      { properties: [{ name: 'careen.cpus', value: 'many', type: 'int' }] },
      'properties[0]',
    ],
    [
      'PUT',
      '/v1/orgs/acme/deployment-policies/web',
      {
        project: 'web',
        service: { org: 'acme', url: 'acme.web', versionRange: '>=1.0.0' },
        constraints: ['(careen.arch == amd64'],
        placement: { mode: 'all' },
      },
      'constraints[0]',
    ],
  ])('checks %s %s with the constraint language, naming %s', async (method, path, body, field) => {
    const response = await call(method, path, body);
    expect(response.status).toBe(400);
    expect(response.body.message).toContain(field);
  });

  it("lets a node read its org's policies, as an agent starting afresh does, and nothing more", async () => {
    await publish('readable', { nodes: ['amd-1'], agentUpgradePolicy: { atLeastVersion: '3.0.0' } });
    const listed = await call('GET', '/v1/orgs/acme/management-policies', undefined, asNode('amd-1'));
    expect(listed.status).toBe(200);
    expect(listed.body.items.find((nmp: { name: string }) => nmp.name === 'readable')).toMatchObject({
      nodes: ['amd-1'],
      agentUpgradePolicy: { atLeastVersion: '3.0.0' },
    });
    expect(
      (await call('GET', '/v1/orgs/acme/management-policies/readable', undefined, asNode('arm-1'))).status,
    ).toBe(200);
    expect((await publish('by-node', { nodes: ['amd-1'] }, asNode('amd-1'))).status).toBe(403);
    expect(
      (await call('GET', '/v1/orgs/acme/management-policies/readable/nodes', undefined, asNode('amd-1')))
        .status,
    ).toBe(403);
  });

  it('refuses a status of a node that does not exist before it looks at the policy', async () => {
    await publish('for-amd', { nodes: ['amd-1'] });
    const reset = (node: string, nmp: string) =>
      call('PUT', `/v1/orgs/acme/nodes/${node}/managementStatus/${nmp}`, { status: 'reset' });
    const refusal = async (node: string, nmp: string) => {
      const answer = await reset(node, nmp);
      return [answer.status, answer.body.details.code];
    };
    expect(await refusal('ghost', 'for-amd')).toEqual([404, 'NODE_NOT_FOUND']);
    expect(await refusal('ghost', 'no-such-policy')).toEqual([404, 'NODE_NOT_FOUND']);
    expect(await refusal('amd-1', 'no-such-policy')).toEqual([404, 'NMP_NOT_FOUND']);
  });

  it('deletes a policy and its statuses', async () => {
    await publish('gone-soon', { nodes: ['amd-1'] });
    await call(
      'PUT',
      '/v1/orgs/acme/nodes/amd-1/managementStatus/gone-soon',
      { status: 'waiting' },
      asNode('amd-1'),
    );
    expect((await call('DELETE', '/v1/orgs/acme/management-policies/gone-soon')).status).toBe(200);
    expect((await call('GET', '/v1/orgs/acme/nodes/amd-1/managementStatus/gone-soon')).status).toBe(404);
  });
});
