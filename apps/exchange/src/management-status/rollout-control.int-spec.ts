/**
 * Steering a management policy's rollout at the exchange: pause and resume, the barrier that
 * keeps nodes from starting a step of a stopped policy, re-enabling after a threshold stop,
 * resetting nodes in bulk, and the per-node statuses page by page.
 */
import { MANAGEMENT_STATUSES } from '@careen/contracts';
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
const NODES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const asNode = (id: string) => seededNode('acme', id);

describe('rollout control', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const call = (method: string, path: string, body?: unknown, auth: Credentials = admin) =>
    http(exchange.url, method, path, { auth, body });
  const policyPath = (name: string) => `/v1/orgs/acme/management-policies/${name}`;
  const publish = (name: string, body: Record<string, unknown> = {}) =>
    call('PUT', policyPath(name), {
      nodes: NODES,
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', duration: 600 },
      ...body,
    });
  const status = (node: string, nmp: string, body: Record<string, unknown>) =>
    call('PUT', `/v1/orgs/acme/nodes/${node}/managementStatus/${nmp}`, body, asNode(node));
  const policy = async (name: string) => (await call('GET', policyPath(name))).body;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await seedExchange(exchange.url, { acme: { users: { ada: 'orgAdmin', vic: 'viewer' }, nodes: NODES } });
    // An enabled upgrade needs its package published.
    const uploaded = await http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: basic('root', 'root', ROOT_PASSWORD),
      rawBody: await agentPackage('2.0.0'),
      headers: { 'content-type': 'application/gzip' },
    });
    expect(uploaded.status).toBe(201);
  });

  afterAll(() => exchange.close());

  describe('pause and resume', () => {
    it('pauses: nodes may not start a step, while nodes already installing finish', async () => {
      await publish('paused-one');
      await status('n1', 'paused-one', { status: 'initiated', version: '2.0.0' });
      const paused = await call('POST', `${policyPath('paused-one')}/pause`);
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({
        state: 'paused',
        paused: true,
        enabled: true,
        pausedAt: expect.any(String),
      });
      expect((await call('POST', `${policyPath('paused-one')}/pause`)).body.pausedAt).toBe(
        paused.body.pausedAt,
      );

      for (const step of ['downloading', 'initiated']) {
        const refused = await status('n2', 'paused-one', { status: step, version: '2.0.0' });
        expect(refused.status).toBe(409);
        expect(refused.body.details).toMatchObject({ code: 'MANAGEMENT_POLICY_STOPPED', state: 'paused' });
      }
      expect((await status('n1', 'paused-one', { status: 'successful', version: '2.0.0' })).status).toBe(200);
      expect((await status('n2', 'paused-one', { status: 'paused', version: '2.0.0' })).status).toBe(200);
      const rollup = (await call('GET', `${policyPath('paused-one')}/status`)).body;
      expect(rollup).toMatchObject({ state: 'paused', paused: true, counts: { paused: 1, successful: 1 } });
    });

    it('tells the nodes through the change feed', async () => {
      const head = (await call('GET', '/v1/orgs/acme/changes/head', undefined, asNode('n3'))).body.lastId;
      await publish('announced');
      await call('POST', `${policyPath('announced')}/pause`);
      await call('POST', `${policyPath('announced')}/resume`, {});
      // The feed serves a change once the outbox relay has sequenced it.
      await eventually(async () => {
        const changes = (
          await call('GET', `/v1/orgs/acme/changes?since=${head}&wait=0`, undefined, asNode('n3'))
        ).body.changes.filter((change: { resourceId: string }) => change.resourceId === 'announced');
        expect(
          changes.map((change: { event: string; data: { state: string } }) => [
            change.event,
            change.data.state,
          ]),
        ).toEqual([
          ['published', 'active'],
          ['paused', 'paused'],
          ['resumed', 'active'],
        ]);
      });
    });

    it('resumes over what was left of the window, or over the window given', async () => {
      await publish('windowed');
      const paused = (await call('POST', `${policyPath('windowed')}/pause`)).body;
      const left = 600 - Math.floor((Date.parse(paused.pausedAt) - Date.parse(paused.lastUpdated)) / 1000);
      const resumed = await call('POST', `${policyPath('windowed')}/resume`, {});
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ state: 'active', paused: false, pausedAt: null });
      expect(resumed.body.resumeWindow.duration).toBeGreaterThanOrEqual(left - 1);
      expect(resumed.body.resumeWindow.duration).toBeLessThanOrEqual(600);
      expect((await status('n2', 'windowed', { status: 'downloading' })).status).toBe(200);

      await call('POST', `${policyPath('windowed')}/pause`);
      const given = await call('POST', `${policyPath('windowed')}/resume`, { window: 90 });
      expect(given.body.resumeWindow).toEqual({ start: expect.any(String), duration: 90 });
      // Resuming an active rollout changes nothing.
      expect(
        (await call('POST', `${policyPath('windowed')}/resume`, { window: 5 })).body.resumeWindow.duration,
      ).toBe(90);
    });

    it.each([
      [{ window: -1 }, 'window'],
      [{ window: 'soon' }, 'window'],
      [{ later: true }, 'later'],
    ])('refuses a resume body %o with 400 naming %s', async (body, field) => {
      await publish('picky');
      const refused = await call('POST', `${policyPath('picky')}/resume`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain(field);
    });

    it('refuses to pause a disabled policy, a missing one, and viewers', async () => {
      await publish('off', { enabled: false });
      const refused = await call('POST', `${policyPath('off')}/pause`);
      expect(refused.status).toBe(409);
      expect(refused.body.details.code).toBe('MANAGEMENT_POLICY_DISABLED');
      expect((await call('POST', `${policyPath('nowhere')}/pause`)).status).toBe(404);
      expect((await call('POST', `${policyPath('off')}/resume`, {}, viewer)).status).toBe(403);
    });
  });

  describe('the barrier', () => {
    it('refuses a new step once a disable commits, to a write that arrived while it was in flight', async () => {
      await publish('racing');
      const disabling = new Client({ connectionString: infra.databaseUrl });
      await disabling.connect();
      try {
        await disabling.query('BEGIN');
        await disabling.query(
          "UPDATE exchange.management_policies SET enabled = false WHERE org = 'acme' AND name = 'racing'",
        );
        const starting = status('n3', 'racing', { status: 'downloading', version: '2.0.0' });
        // The write waits for the disable's row lock rather than slipping in before its commit.
        await eventually(async () => {
          const [waiting] = (
            await disabling.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
          ).rows as { n: number }[];
          expect(waiting!.n).toBeGreaterThan(0);
        });
        await disabling.query('COMMIT');
        const answer = await starting;
        expect(answer.status).toBe(409);
        expect(answer.body.details).toMatchObject({ code: 'MANAGEMENT_POLICY_STOPPED', state: 'disabled' });
      } finally {
        await disabling.end();
      }
      expect((await call('GET', '/v1/orgs/acme/nodes/n3/managementStatus/racing')).status).toBe(404);
    });

    it('refuses every step after the failure that reaches the threshold', async () => {
      await publish('threshold', { failureThreshold: 1 });
      await status('n1', 'threshold', { status: 'failed', error: 'bad package' });
      const refused = await status('n2', 'threshold', { status: 'downloading' });
      expect(refused.body.details).toMatchObject({ code: 'MANAGEMENT_POLICY_STOPPED', state: 'disabled' });
      expect((await status('n2', 'threshold', { status: 'waiting' })).status).toBe(200);
    });
  });

  describe('re-enabling after a threshold stop', () => {
    it('counts only the failures after the re-enable, and says so', async () => {
      await publish('second-chance', { failureThreshold: 2 });
      await status('n1', 'second-chance', { status: 'rolled-back', error: 'bad' });
      await status('n2', 'second-chance', { status: 'rollback-failed', error: 'worse' });
      expect(await policy('second-chance')).toMatchObject({ state: 'disabled', enabled: false });

      const resumed = await call('POST', `${policyPath('second-chance')}/resume`, {});
      expect(resumed.body).toMatchObject({
        state: 'active',
        disabledReason: null,
        failuresCountedSince: expect.any(String),
      });
      const rollup = (await call('GET', `${policyPath('second-chance')}/status`)).body;
      expect(rollup).toMatchObject({ failed: 0, counts: { 'rolled-back': 1, 'rollback-failed': 1 } });
      expect(rollup.failuresCountedSince).toBe(resumed.body.failuresCountedSince);

      await status('n3', 'second-chance', { status: 'failed', error: 'again' });
      expect((await policy('second-chance')).enabled).toBe(true);
      await status('n4', 'second-chance', { status: 'rolled-back', error: 'again' });
      const stopped = await policy('second-chance');
      expect(stopped.enabled).toBe(false);
      expect(stopped.disabledReason).toBe(
        `disabled by the exchange: 2 of its nodes failed since it was re-enabled at ${resumed.body.failuresCountedSince} (failureThreshold 2)`,
      );
    });

    it('also counts afresh when republished enabled', async () => {
      await publish('republished', { failureThreshold: 1 });
      await status('n1', 'republished', { status: 'failed', error: 'bad' });
      const again = await publish('republished', { failureThreshold: 1 });
      expect(again.body).toMatchObject({ enabled: true, failuresCountedSince: expect.any(String) });
      expect((await call('GET', `${policyPath('republished')}/status`)).body.failed).toBe(0);
    });
  });

  describe('reset', () => {
    it('resets the failed nodes in one call, each with its own change', async () => {
      await publish('clearing');
      await status('n1', 'clearing', { status: 'rolled-back', error: 'bad' });
      await status('n2', 'clearing', { status: 'precheck-failed', error: 'hash' });
      await status('n3', 'clearing', { status: 'successful' });
      const reset = await call('POST', `${policyPath('clearing')}/reset`, { failed: true });
      expect(reset.status).toBe(200);
      expect(reset.body).toEqual({ nmp: 'clearing', nodes: ['n1', 'n2'], total: 2 });
      expect((await call('GET', `${policyPath('clearing')}/status`)).body.counts).toEqual({
        successful: 1,
        reset: 2,
      });
    });

    it('resets the nodes named, or all of them', async () => {
      await publish('chosen');
      await status('n4', 'chosen', { status: 'successful' });
      expect((await call('POST', `${policyPath('chosen')}/reset`, { nodes: ['n5'] })).body.nodes).toEqual([
        'n5',
      ]);
      expect((await call('POST', `${policyPath('chosen')}/reset`, {})).body.nodes).toEqual(['n4', 'n5']);
    });

    it.each([
      [{ nodes: ['n1'], failed: true }, 400, 'failed'],
      [{ nodes: ['ghost'] }, 404, 'ghost'],
      [{ nodes: [] }, 400, 'nodes'],
      [{ nodes: ['a b'] }, 400, 'nodes'],
      [{ failed: 'yes' }, 400, 'failed'],
    ])('refuses %o with %i naming %s', async (body, code, named) => {
      await publish('strict');
      const refused = await call('POST', `${policyPath('strict')}/reset`, body);
      expect(refused.status).toBe(code);
      expect(refused.body.message).toContain(named);
    });

    it('is for operators and admins, not viewers or nodes', async () => {
      expect((await call('POST', `${policyPath('strict')}/reset`, {}, viewer)).status).toBe(403);
      expect((await call('POST', `${policyPath('strict')}/reset`, {}, asNode('n1'))).status).toBe(403);
    });
  });

  describe('statuses', () => {
    it('lists every node of the policy a page at a time, by node id', async () => {
      await publish('paged');
      for (const node of [...NODES].reverse()) await status(node, 'paged', { status: 'waiting' });
      const seen: string[] = [];
      let after: string | null = null;
      do {
        const page: {
          status: number;
          body: { items: { node: string }[]; total: number; next: string | null };
        } = await call(
          'GET',
          `${policyPath('paged')}/statuses?limit=2${after ? `&after=${after}` : ''}`,
          undefined,
          viewer,
        );
        expect(page.status).toBe(200);
        expect(page.body.total).toBe(5);
        seen.push(...page.body.items.map((item) => item.node));
        after = page.body.next;
      } while (after);
      expect(seen).toEqual(NODES);
    });

    it.each([['limit=0'], ['limit=1001'], ['limit=two'], ['after=a%20b'], ['sort=node']])(
      'refuses %s with 400',
      async (query) => {
        expect((await call('GET', `${policyPath('paged')}/statuses?${query}`)).status).toBe(400);
      },
    );

    it('rolls the counts up in the order nodes go through the statuses', async () => {
      await publish('ordered');
      const written = ['rolled-back', 'successful', 'downloading', 'waiting', 'ha-waiting'];
      for (const [index, node] of NODES.entries()) await status(node, 'ordered', { status: written[index] });
      const counts = (await call('GET', `${policyPath('ordered')}/status`)).body.counts;
      expect(Object.keys(counts)).toEqual(MANAGEMENT_STATUSES.filter((value) => written.includes(value)));
    });

    it("numbers a node's attempts and keeps the version it started from", async () => {
      await publish('attempts');
      const steps = [
        'waiting',
        'downloading',
        'downloaded',
        'initiated',
        'failed',
        'rolling-back',
        'rolled-back',
      ];
      for (const step of steps)
        await status('n1', 'attempts', {
          status: step,
          version: '2.0.0',
          fromVersion: step === 'waiting' ? '1.0.0' : undefined,
        });
      const first = (await call('GET', '/v1/orgs/acme/nodes/n1/managementStatus/attempts')).body;
      expect(first).toMatchObject({ status: 'rolled-back', attempt: 1, fromVersion: '1.0.0' });
      await call('POST', `${policyPath('attempts')}/reset`, { nodes: ['n1'] });
      await status('n1', 'attempts', { status: 'waiting', version: '2.0.0', fromVersion: '1.0.0' });
      expect((await call('GET', '/v1/orgs/acme/nodes/n1/managementStatus/attempts')).body).toMatchObject({
        status: 'waiting',
        attempt: 2,
      });
    });
  });
});
