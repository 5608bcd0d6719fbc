/**
 * The rollout history: every status a node wrote and every event of its policy, newest first,
 * a page at a time, per node and per policy, kept after the policy is removed.
 */
import { startServiceInProcess, type InProcessService } from '@careen/service';
import {
  http,
  ROOT_PASSWORD,
  seededNode,
  seededRoot as root,
  seededUser,
  seedExchange,
  useTestInfra,
  type Credentials,
} from '@careen/testing';
import { agentPackage } from '../agent-packages/agent-package.fixtures';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const admin = seededUser('acme', 'ada');
const viewer = seededUser('acme', 'vic');
const stranger = seededUser('other', 'olga');
const asNode = (id: string) => seededNode('acme', id);
const ATTEMPT = [
  'waiting',
  'downloading',
  'downloaded',
  'initiated',
  'failed',
  'rolling-back',
  'rolled-back',
];

interface Entry {
  id: string;
  node: string | null;
  kind: string;
  event: string;
  version: string | null;
  fromVersion: string | null;
  attempt: number | null;
  detail: string | null;
  actor: string | null;
  rollback: boolean;
}

describe('rollout history', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const call = (method: string, path: string, body?: unknown, auth: Credentials = admin) =>
    http(exchange.url, method, path, { auth, body });
  const status = (node: string, nmp: string, body: Record<string, unknown>) =>
    call('PUT', `/v1/orgs/acme/nodes/${node}/managementStatus/${nmp}`, body, asNode(node));

  /** Every entry of a history, following `next` a page of `limit` at a time. */
  async function readAll(path: string, limit: number, auth: Credentials = admin): Promise<Entry[]> {
    const entries: Entry[] = [];
    let before: string | null = null;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const page: { status: number; body: { items: Entry[]; next: string | null } } = await call(
        'GET',
        `${path}${separator}limit=${limit}${before ? `&before=${before}` : ''}`,
        undefined,
        auth,
      );
      expect(page.status).toBe(200);
      entries.push(...page.body.items);
      before = page.body.next;
    } while (before);
    return entries;
  }

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await seedExchange(exchange.url, {
      acme: { users: { ada: 'orgAdmin', vic: 'viewer' }, nodes: ['n1', 'n2'] },
      other: { users: { olga: 'orgAdmin' } },
    });
    // An enabled upgrade needs its package published.
    const uploaded = await http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: root,
      rawBody: await agentPackage('2.0.0'),
      headers: { 'content-type': 'application/gzip' },
    });
    expect(uploaded.status).toBe(201);

    await call('PUT', '/v1/orgs/acme/management-policies/upgrade', {
      nodes: ['n1', 'n2'],
      enabled: true,
      failureThreshold: 1,
      agentUpgradePolicy: { atLeastVersion: '2.0.0' },
    });
    for (const step of ATTEMPT)
      await status('n1', 'upgrade', {
        status: step,
        version: '2.0.0',
        fromVersion: '1.0.0',
        ...(step === 'failed' || step === 'rolled-back' ? { error: 'health check failed' } : {}),
      });
    await call('POST', '/v1/orgs/acme/management-policies/upgrade/reset', { nodes: ['n1'] });
    await call('POST', '/v1/orgs/acme/management-policies/upgrade/resume', {});
    for (const step of ['waiting', 'downloading', 'downloaded', 'initiated', 'successful'])
      await status('n1', 'upgrade', { status: step, version: '2.0.0', fromVersion: '1.0.0' });
    await status('n2', 'upgrade', { status: 'no-action-required', version: '2.0.0' });
  });

  afterAll(() => exchange.close());

  it("keeps every status of every attempt in a node's history, newest first, page after page", async () => {
    const history = await readAll('/v1/orgs/acme/nodes/n1/history', 3);
    expect(history.map((entry) => [entry.attempt, entry.event]).reverse()).toEqual([
      ...ATTEMPT.map((step) => [1, step]),
      [1, 'reset'],
      ...['waiting', 'downloading', 'downloaded', 'initiated', 'successful'].map((step) => [2, step]),
    ]);
    const ids = history.map((entry) => BigInt(entry.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(new Set(ids).size).toBe(ids.length);
    expect(history.find((entry) => entry.event === 'rolled-back')).toMatchObject({
      kind: 'status',
      version: '2.0.0',
      fromVersion: '1.0.0',
      detail: 'health check failed',
      actor: null,
    });
    expect(history.find((entry) => entry.event === 'reset')).toMatchObject({ actor: 'acme/ada' });
  });

  it("tells the policy's events among its nodes' statuses, and filters by node", async () => {
    const history = await readAll('/v1/orgs/acme/management-policies/upgrade/history', 4);
    const events = history.filter((entry) => entry.kind === 'policy').reverse();
    expect(events.map((entry) => [entry.event, entry.actor])).toEqual([
      ['published', 'acme/ada'],
      ['disabled', null],
      ['reset', 'acme/ada'],
      ['enabled', 'acme/ada'],
    ]);
    expect(events[1]!.detail).toContain('failureThreshold 1');
    expect(events[3]!.detail).toContain('only failures from now on count');
    expect(history.filter((entry) => entry.kind === 'status')).toHaveLength(ATTEMPT.length + 1 + 5 + 1);
    const n2 = await readAll('/v1/orgs/acme/management-policies/upgrade/history?node=n2', 10);
    expect(n2.map((entry) => [entry.node, entry.event])).toEqual([['n2', 'no-action-required']]);
  });

  it('marks the statuses of an attempt to go below the version the node ran a rollback', async () => {
    const uploaded = await http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: root,
      rawBody: await agentPackage('1.0.0'),
      headers: { 'content-type': 'application/gzip' },
    });
    expect(uploaded.status).toBe(201);
    const published = await call('PUT', '/v1/orgs/acme/management-policies/back', {
      nodes: ['n2'],
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: '1.0.0', allowDowngrade: true },
    });
    expect(published.status).toBe(201);
    for (const step of ['waiting', 'downloading', 'downloaded', 'initiated', 'successful'])
      await status('n2', 'back', { status: step, version: '1.0.0', fromVersion: '2.0.0' });

    const back = await readAll('/v1/orgs/acme/management-policies/back/history', 100);
    expect(
      back.filter((entry) => entry.kind === 'status').map((entry) => [entry.event, entry.rollback]),
    ).toEqual(
      ['successful', 'initiated', 'downloaded', 'downloading', 'waiting'].map((step) => [step, true]),
    );
    expect(back.filter((entry) => entry.kind === 'policy').every((entry) => !entry.rollback)).toBe(true);
    // Going up, or without a version to compare, is no rollback.
    const up = await readAll('/v1/orgs/acme/nodes/n1/history?nmp=upgrade', 100);
    expect(up.some((entry) => entry.rollback)).toBe(false);
    const n2 = await readAll('/v1/orgs/acme/management-policies/upgrade/history?node=n2', 10);
    expect(n2).toEqual([expect.objectContaining({ event: 'no-action-required', rollback: false })]);
  });

  it('outlives the removal of the policy, which it records', async () => {
    expect((await call('DELETE', '/v1/orgs/acme/management-policies/upgrade')).status).toBe(200);
    expect((await call('GET', '/v1/orgs/acme/nodes/n1/managementStatus/upgrade')).status).toBe(404);
    const history = await readAll('/v1/orgs/acme/management-policies/upgrade/history', 100);
    expect(history[0]).toMatchObject({ kind: 'policy', event: 'removed', actor: 'acme/ada' });
    expect(history.filter((entry) => entry.node === 'n1')).toHaveLength(ATTEMPT.length + 1 + 5);
    expect(await readAll('/v1/orgs/acme/nodes/n1/history?nmp=upgrade', 100)).toHaveLength(
      ATTEMPT.length + 1 + 5,
    );
  });

  it('lets a node read its own history only, and no one outside the org', async () => {
    expect((await call('GET', '/v1/orgs/acme/nodes/n1/history', undefined, asNode('n1'))).status).toBe(200);
    expect((await call('GET', '/v1/orgs/acme/nodes/n1/history', undefined, asNode('n2'))).status).toBe(403);
    expect((await call('GET', '/v1/orgs/acme/nodes/n1/history', undefined, viewer)).status).toBe(200);
    expect((await call('GET', '/v1/orgs/acme/nodes/n1/history', undefined, stranger)).status).toBe(403);
    expect(
      (await call('GET', '/v1/orgs/acme/management-policies/upgrade/history', undefined, asNode('n1')))
        .status,
    ).toBe(403);
    expect((await call('GET', '/v1/orgs/ghost/nodes/n1/history', undefined, root)).status).toBe(404);
  });

  it.each([
    ['limit=0'],
    ['limit=1001'],
    ['limit=many'],
    ['before=abc'],
    ['before=0'],
    ['nmp=a%20b'],
    ['sort=at'],
  ])('refuses %s with 400 naming it', async (query) => {
    const refused = await call('GET', `/v1/orgs/acme/nodes/n1/history?${query}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(query.split('=')[0]);
  });
});
