import { ExchangeChanged } from '@careen/contracts';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, useTestInfra, withClient } from '@careen/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';
import { ChangeLogRepository } from './change-log.repository';
import { type ChangeRecord } from './change-record';
import { ChangeTail } from './change-tail';
import { NodeHeartbeat } from './node-heartbeat';
import { isVisibleTo, nodeScopes } from './change-visibility';

const root = basic('root', 'root', 'root-password-1');

describe('the change feed', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const call = (method: string, path: string, body?: unknown) =>
    http(exchange.url, method, path, { auth: root, body });
  const poll = (org: string, query: string) =>
    http(exchange.url, 'GET', `/v1/orgs/${org}/changes?${query}`, { auth: root });
  /** An exchange on the same database and bus: a replica, with memory of its own. */
  const startReplica = () =>
    startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: 'root-password-1' });
  const addUser = (org: string, username: string) =>
    call('POST', `/v1/orgs/${org}/users`, { username, password: 'long-enough', role: 'operator' });

  beforeAll(async () => {
    exchange = await startReplica();
    await call('POST', '/v1/orgs', { id: 'acme' });
    await call('POST', '/v1/orgs', { id: 'beta' });
  });

  afterAll(() => exchange.close());

  /** The newest change id, once the relay has numbered everything committed so far. */
  async function latestId(): Promise<number> {
    return eventually(async () => {
      const { rows } = await withClient(infra.databaseUrl, (client) =>
        client.query<{ pending: string; latest: string | null }>(
          'SELECT count(*) FILTER (WHERE seq IS NULL) AS pending, max(seq) AS latest FROM exchange.outbox',
        ),
      );
      expect(Number(rows[0]?.pending)).toBe(0);
      return Number(rows[0]?.latest ?? 0);
    });
  }

  it('answers at once with the org changes after `since`, in id order', async () => {
    await addUser('acme', 'first');
    await eventually(async () => {
      const response = await poll('acme', 'since=0');
      expect(response.status).toBe(200);
      const changes = response.body.changes as {
        id: number;
        org: string;
        resource: string;
        resourceId: string;
      }[];
      expect(changes.map((change) => `${change.resource}:${change.resourceId}`)).toEqual([
        'org:acme',
        'user:first',
      ]);
      expect(changes.every((change) => change.org === 'acme')).toBe(true);
      expect(changes.map((change) => change.id)).toEqual(
        [...changes.map((change) => change.id)].sort((a, b) => a - b),
      );
      expect(response.body.lastId).toBe(changes[1]?.id);
    });
  });

  it('wakes a long-poller within the same second as a relevant change', async () => {
    const since = await latestId();
    const started = Date.now();
    const tail = exchange.app.get(ChangeTail);
    const before = tail.waiting;
    const waiting = poll('acme', `since=${since}&wait=20`);
    await eventually(() => expect(tail.waiting).toBe(before + 1));
    const changedAt = Date.now();
    await addUser('acme', 'wakes-poller');

    const response = await waiting;

    expect(response.body.changes.map((change: { resourceId: string }) => change.resourceId)).toEqual([
      'wakes-poller',
    ]);
    expect(Date.now() - changedAt).toBeLessThan(1_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("never hands a poller another org's change, and moves its cursor past them", async () => {
    const since = await latestId();
    const waiting = poll('acme', `since=${since}&wait=1`);
    await addUser('beta', 'not-for-acme');

    const response = await waiting;

    expect(response.status).toBe(200);
    expect(response.body.changes).toEqual([]);
  });

  it('never skips a change committed by a slower transaction', async () => {
    const since = await latestId();
    const slow = new Client({ connectionString: infra.databaseUrl });
    await slow.connect();
    await slow.query('BEGIN');
    await slow.query(`INSERT INTO exchange.outbox (subject, type, payload) VALUES ($1, $2, $3)`, [
      ExchangeChanged.subject('acme', 'org', 'acme'),
      ExchangeChanged.type,
      JSON.stringify({
        org: 'acme',
        resource: 'org',
        resourceId: 'acme',
        operation: 'updated',
        changedAt: new Date().toISOString(),
      }),
    ]);
    await addUser('acme', 'committed-first');

    // The change committed first is numbered first, while the slower transaction is still open.
    const meanwhile = await eventually(async () => {
      const response = await poll('acme', `since=${since}&wait=1`);
      expect(response.body.changes).toHaveLength(1);
      return response.body as { changes: { resource: string; resourceId: string }[]; lastId: number };
    });
    expect(meanwhile.changes.map((change) => `${change.resource}:${change.resourceId}`)).toEqual([
      'user:committed-first',
    ]);
    await slow.query('COMMIT');
    await slow.end();

    // The slower one comes after it: a poller that saw the first misses nothing.
    const after = await poll('acme', `since=${meanwhile.lastId}&wait=5`);
    expect(
      after.body.changes.map(
        (change: { resource: string; resourceId: string }) => `${change.resource}:${change.resourceId}`,
      ),
    ).toEqual(['org:acme']);
    expect(after.body.changes[0].id).toBeGreaterThan(meanwhile.lastId);
  });

  it('answers 410 with the id to resync from when `since` is older than what is kept', async () => {
    await latestId();
    await withClient(infra.databaseUrl, (client) =>
      client.query('DELETE FROM exchange.outbox WHERE seq <= (SELECT min(seq) + 1 FROM exchange.outbox)'),
    );
    // A replica started now holds no changes in memory: it can only read the pruned log.
    const restarted = await startReplica();
    try {
      const response = await http(restarted.url, 'GET', '/v1/orgs/acme/changes?since=0', { auth: root });
      expect(response.status).toBe(410);
      expect(response.body.details.resyncFrom).toBeGreaterThan(0);
      const resumed = await http(
        restarted.url,
        'GET',
        `/v1/orgs/acme/changes?since=${response.body.details.resyncFrom}`,
        { auth: root },
      );
      expect(resumed.status).toBe(200);
    } finally {
      await restarted.close();
    }
    // The replica that followed the feed since before those changes still has them all in memory.
    const whole = await poll('acme', 'since=0');
    expect(whole.status).toBe(200);
    expect(whole.body.changes[0].resourceId).toBe('acme');
  });

  it.each([
    ['since=-1', 'since'],
    ['wait=soon', 'wait'],
    ['limit=5000', 'limit'],
    ['wait=121', 'wait'],
    ['cursor=3', 'cursor'],
  ])('refuses the query %s with 400 naming %s', async (query, field) => {
    const response = await poll('acme', query);
    expect(response.status).toBe(400);
    expect(response.body.message).toContain(field);
  });

  it("refuses another org's feed to its users", async () => {
    await call('POST', '/v1/orgs/beta/users', { username: 'bea', password: 'long-enough', role: 'orgAdmin' });
    const response = await http(exchange.url, 'GET', '/v1/orgs/acme/changes?since=0', {
      auth: basic('beta', 'bea', 'long-enough'),
    });
    expect(response.status).toBe(403);
  });

  it('reads ids across a power of ten in numeric order, each once', async () => {
    const since = await latestId();
    // The next ids run from 9,999,998 on: the changes below cross into eight digits.
    await withClient(infra.databaseUrl, (client) =>
      client.query("SELECT setval('exchange.outbox_seq', 9999997)"),
    );
    for (const name of ['p1', 'p2', 'p3', 'p4']) await addUser('acme', name);
    await latestId();
    const log = exchange.app.get(ChangeLogRepository);
    expect((await log.after(since, 3, 'acme')).map((change) => change.id)).toEqual([
      9_999_998, 9_999_999, 10_000_000,
    ]);
    const tail = exchange.app.get(ChangeTail);
    await eventually(() => expect(tail.latestId()).toBe(10_000_001));
    const read = await poll('acme', `since=${since}&limit=10`);
    expect(read.body.changes.map((change: { id: number }) => change.id)).toEqual([
      9_999_998, 9_999_999, 10_000_000, 10_000_001,
    ]);
  });

  describe('for nodes', () => {
    const node = (id: string) => basic('acme', id, `${id}-token-0123456789`);
    const pollAs = (id: string, query: string) =>
      http(exchange.url, 'GET', `/v1/orgs/acme/changes?${query}`, { auth: node(id) });

    beforeAll(async () => {
      await call('PUT', '/v1/orgs/acme/nodes/edge-1', { token: 'edge-1-token-0123456789' });
      await call('PUT', '/v1/orgs/acme/nodes/edge-2', { token: 'edge-2-token-0123456789' });
    });

    it("sees its own node and its org's policies, never another node's changes or users", async () => {
      const since = await latestId();
      await call('PATCH', '/v1/orgs/acme/nodes/edge-2', { labels: { zone: 'b' } });
      await addUser('acme', 'hidden-from-nodes');
      await call('PATCH', '/v1/orgs/acme/nodes/edge-1', { labels: { zone: 'a' } });
      await call('PUT', '/v1/orgs/acme/management-policies/upgrade', { nodes: ['edge-1'] });

      const seen = await eventually(async () => {
        const response = await pollAs('edge-1', `since=${since}`);
        expect(response.body.changes).toHaveLength(2);
        return response.body.changes as { resource: string; resourceId: string }[];
      });

      expect(seen.map((change) => `${change.resource}:${change.resourceId}`)).toEqual([
        'node:edge-1',
        'managementPolicy:upgrade',
      ]);
    });

    it("is woken only by changes that concern it, so other nodes' reports cost it nothing", async () => {
      const tail = exchange.app.get(ChangeTail);
      const seen = tail.latestId();
      let woken = false;
      const waiting = tail
        .waitForChanges(
          seen,
          (change) => change.resource === 'node' && change.resourceId === 'edge-1',
          30_000,
          new AbortController().signal,
        )
        .then(() => (woken = true));
      await call('PATCH', '/v1/orgs/acme/nodes/edge-2', { labels: { zone: 'c' } });
      // The tail has taken edge-2's change in (and woken whom it concerns) without waking this poller.
      await eventually(() => expect(tail.latestId()).toBeGreaterThan(seen));
      expect(woken).toBe(false);
      await call('PATCH', '/v1/orgs/acme/nodes/edge-1', { labels: { zone: 'c' } });
      await waiting;
      expect(woken).toBe(true);
    });

    it("is checked only against changes in its scopes: its own, its org's and everyone's", async () => {
      const tail = exchange.app.get(ChangeTail);
      const principal = { kind: 'node', org: 'acme', node: 'edge-1' } as const;
      const waitAsNode = () => {
        let woken = false;
        const waiting = tail
          .waitForChanges(
            tail.latestId(),
            (change) => isVisibleTo(principal, 'acme', change),
            30_000,
            new AbortController().signal,
            nodeScopes('acme', 'edge-1'),
          )
          .then(() => (woken = true));
        return { waiting, woken: () => woken };
      };
      const first = waitAsNode();
      const seen = tail.latestId();
      await call('PATCH', '/v1/orgs/acme/nodes/edge-2', { labels: { zone: 'e' } });
      await addUser('acme', 'scoped-out');
      await eventually(() => expect(tail.latestId()).toBeGreaterThan(seen + 1));
      expect(first.woken()).toBe(false);
      await call('PATCH', '/v1/orgs/acme/nodes/edge-1', { labels: { zone: 'e' } });
      await first.waiting;

      const second = waitAsNode();
      await call('PUT', '/v1/orgs/acme/services/scoped-in', {
        url: 'scoped-in',
        version: '1.0.0',
        arch: 'amd64',
        runtime: {},
      });
      await second.waiting;
      expect([first.woken(), second.woken(), tail.waiting]).toEqual([true, true, 0]);
    });

    it('is not woken by its own status reports, and reads them with the next change that wakes it', async () => {
      const tail = exchange.app.get(ChangeTail);
      await call('PUT', '/v1/orgs/acme/management-policies/own-report', { nodes: ['edge-1'] });
      const seen = await latestId();
      let answered = false;
      const polling = pollAs('edge-1', `since=${seen}&wait=60`).then((response) => {
        answered = true;
        return response;
      });
      await eventually(() => expect(tail.waiting).toBe(1));
      const reports = [
        await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/edge-1/status', {
          auth: node('edge-1'),
          body: { workloads: [] },
        }),
        await http(exchange.url, 'PUT', '/v1/orgs/acme/nodes/edge-1/managementStatus/own-report', {
          auth: node('edge-1'),
          body: { status: 'waiting' },
        }),
      ];
      expect(reports.map((report) => report.status)).toEqual([200, 200]);
      const reported = await latestId();
      await eventually(() => expect(tail.latestId()).toBe(reported));
      expect([answered, tail.waiting]).toEqual([false, 1]);

      await call('PATCH', '/v1/orgs/acme/nodes/edge-1', { labels: { zone: 'd' } });
      const changes = (await polling).body.changes as { resource: string; byNode?: boolean }[];
      expect(changes.map((change) => [change.resource, change.byNode ?? false])).toEqual([
        ['node', true],
        ['managementStatus', true],
        ['node', false],
      ]);
    });

    it('records each status report with the resource exactly as the report was answered', async () => {
      await call('PUT', '/v1/orgs/acme/management-policies/recorded', { nodes: ['edge-1'], enabled: true });
      const seen = await latestId();
      const report = (path: string, body: unknown) =>
        http(exchange.url, 'PUT', `/v1/orgs/acme/nodes/edge-1/${path}`, { auth: node('edge-1'), body });
      const answers = [
        await report('status', {
          agentVersion: { package: '1.4.2', upgradeStart: '2026-03-01T10:00:00.000Z' },
          workloads: [{ service: { org: 'acme', url: 'svc', version: '1.0.0' }, state: 'running' }],
        }),
        await report('managementStatus/recorded', {
          status: 'downloading',
          version: '2.0.0',
          fromVersion: '1.4.2',
          startTime: '2026-03-01T10:00:00.123Z',
        }),
        // A failure is written in a transaction of its own, with the threshold's count.
        await report('managementStatus/recorded', {
          status: 'failed',
          version: '2.0.0',
          endTime: '2026-03-01T10:05:00.000Z',
          error: 'checksum mismatch',
        }),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      const reported = await latestId();
      await eventually(() => expect(exchange.app.get(ChangeTail).latestId()).toBe(reported));
      const changes = (await pollAs('edge-1', `since=${seen}`)).body.changes as ChangeRecord[];
      expect(
        changes.map(({ resource, operation, byNode, data }) => ({ resource, operation, byNode, data })),
      ).toEqual([
        { resource: 'node', operation: 'updated', byNode: true, data: answers[0]!.body },
        { resource: 'managementStatus', operation: 'updated', byNode: true, data: answers[1]!.body },
        { resource: 'managementStatus', operation: 'updated', byNode: true, data: answers[2]!.body },
      ]);
      expect(answers[2]!.body).toMatchObject({
        attempt: 1,
        fromVersion: '1.4.2',
        error: 'checksum mismatch',
      });
    });

    it('answers a node, from memory or from the log, with exactly what the log holds for it, page by page', async () => {
      const start = await latestId();
      for (let round = 0; round < 3; round++) {
        await call('PATCH', '/v1/orgs/acme/nodes/edge-2', { labels: { round: String(round) } });
        await call('PATCH', '/v1/orgs/acme/nodes/edge-1', { labels: { round: String(round) } });
        await addUser('acme', `paged-${round}`);
        await call('PUT', `/v1/orgs/acme/management-policies/paged-${round}`, { nodes: ['edge-2'] });
        await call('PATCH', '/v1/orgs/beta', { label: `round ${round}` });
      }
      const head = await latestId();
      const tail = exchange.app.get(ChangeTail);
      await eventually(() => expect(tail.latestId()).toBe(head));
      const principal = { kind: 'node', org: 'acme', node: 'edge-1' } as const;
      const fromLog = (await exchange.app.get(ChangeLogRepository).after(start, 1000, 'acme')).filter(
        (change) => isVisibleTo(principal, 'acme', change),
      );
      expect(fromLog.map((change) => change.resource)).toEqual([
        'node',
        'managementPolicy',
        'node',
        'managementPolicy',
        'node',
        'managementPolicy',
      ]);
      expect(tail.visibleToNode(start, 1000, 'acme', 'edge-1')).toEqual(fromLog);
      const log = exchange.app.get(ChangeLogRepository);
      expect(await log.visibleToNode(start, 1000, 'acme', 'edge-1')).toEqual(fromLog);

      /** Polls page by page from `start` until the feed has nothing more: the ids of each page. */
      const pagesFrom = async (url: string) => {
        const pages: number[][] = [];
        let since = start;
        for (;;) {
          const page = (
            await http(url, 'GET', `/v1/orgs/acme/changes?since=${since}&limit=4`, { auth: node('edge-1') })
          ).body as { changes: { id: number }[]; lastId: number };
          if (page.changes.length === 0) return { pages, since };
          pages.push(page.changes.map((change) => change.id));
          since = page.lastId;
        }
      };
      const expected = {
        pages: [fromLog.slice(0, 4).map((change) => change.id), fromLog.slice(4).map((change) => change.id)],
        since: head,
      };
      expect(await pagesFrom(exchange.url)).toEqual(expected);
      // A replica started now holds none of these in memory: it reads them from the log, filtered there.
      const replica = await startReplica();
      try {
        expect(await pagesFrom(replica.url)).toEqual(expected);
      } finally {
        await replica.close();
      }
    });

    it('stamps the node heartbeat on every poll, within the flush interval', async () => {
      const before = Date.now();
      await pollAs('edge-2', 'since=0&limit=1');
      await eventually(async () => {
        const status = (await call('GET', '/v1/orgs/acme/nodes/edge-2')).body.status as {
          lastHeartbeat?: string;
        } | null;
        expect(Date.parse(status?.lastHeartbeat ?? '')).toBeGreaterThanOrEqual(before);
      });
    });

    it('stores the heartbeats it gathered before it stops', async () => {
      const replica = await startReplica();
      const before = new Date().toISOString();
      // From the head: earlier tests have pruned the start of the feed.
      const { lastId } = (
        await http(replica.url, 'GET', '/v1/orgs/acme/changes/head', { auth: node('edge-1') })
      ).body as { lastId: number };
      const polled = await http(replica.url, 'GET', `/v1/orgs/acme/changes?since=${lastId}&wait=0`, {
        auth: node('edge-1'),
      });
      expect(polled.status).toBe(200);
      await replica.close();
      const { rows } = await withClient(infra.databaseUrl, (client) =>
        client.query<{ beat: string }>(
          `SELECT status->>'lastHeartbeat' AS beat FROM exchange.nodes WHERE org = 'acme' AND id = 'edge-1'`,
        ),
      );
      expect(rows[0]!.beat >= before).toBe(true);
    });

    it('answers the polls waiting on it, empty, as it stops, reading the feed once more for each', async () => {
      const replica = await startReplica();
      const tail = replica.app.get(ChangeTail);
      const { lastId } = (
        await http(replica.url, 'GET', '/v1/orgs/acme/changes/head', { auth: node('edge-1') })
      ).body as { lastId: number };
      const waiting = http(replica.url, 'GET', `/v1/orgs/acme/changes?since=${lastId}&wait=60`, {
        auth: node('edge-1'),
      });
      await eventually(() => expect(tail.waiting).toBe(1));
      const reads = jest.spyOn(tail, 'visibleToNode');
      await replica.close();
      const answer = await waiting;
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ changes: [], lastId: expect.any(Number) });
      // Not a loop of reads until the poll's own deadline.
      expect(reads).toHaveBeenCalledTimes(1);
    }, 20_000);

    it('stores the heartbeats of many polls at once, while HA groups lock the same nodes', async () => {
      const ids = Array.from({ length: 30 }, (_, i) => `beat-${String(i).padStart(2, '0')}`);
      for (const id of ids)
        await call('PUT', `/v1/orgs/acme/nodes/${id}`, { token: `${id}-token-0123456789` });
      const before = new Date().toISOString();
      const heartbeat = exchange.app.get(NodeHeartbeat);
      const queries = jest.spyOn(exchange.app.get(DataSource), 'query');
      await Promise.all([
        ...ids.map((id) => heartbeat.beat('acme', id)),
        // Groups lock their members in key order; the reversed lists make the requests differ.
        call('POST', '/v1/orgs/acme/hagroups', { name: 'beats-a', members: ids.slice(0, 15).reverse() }),
        call('POST', '/v1/orgs/acme/hagroups', { name: 'beats-b', members: ids.slice(15).reverse() }),
      ]);
      const statements = queries.mock.calls.filter(([sql]) => String(sql).includes('lastHeartbeat')).length;
      queries.mockRestore();
      const { rows } = await withClient(infra.databaseUrl, (client) =>
        client.query<{ id: string; beat: string | null; ha_group: string | null }>(
          `SELECT id, status->>'lastHeartbeat' AS beat, ha_group FROM exchange.nodes WHERE org = 'acme' AND id = ANY($1)`,
          [ids],
        ),
      );
      expect(rows).toHaveLength(30);
      for (const row of rows) expect(row.beat! >= before).toBe(true);
      expect(rows.filter((row) => row.ha_group === 'beats-a')).toHaveLength(15);
      expect(statements).toBeLessThanOrEqual(2);
    });

    it('tells a node where the feed is, so it can follow from now without reading history', async () => {
      const latest = await latestId();
      await eventually(async () => {
        const head = await http(exchange.url, 'GET', '/v1/orgs/acme/changes/head', { auth: node('edge-1') });
        expect([head.status, head.body]).toEqual([200, { lastId: latest }]);
      });
      await call('PUT', '/v1/orgs/acme/management-policies/after-head', { nodes: ['edge-1'] });
      const next = await pollAs('edge-1', `since=${latest}&wait=5`);
      expect(next.body.changes.map((change: { resourceId: string }) => change.resourceId)).toEqual([
        'after-head',
      ]);
      const elsewhere = await http(exchange.url, 'GET', '/v1/orgs/beta/changes/head', {
        auth: node('edge-1'),
      });
      expect(elsewhere.status).toBe(403);
    });
  });
});
