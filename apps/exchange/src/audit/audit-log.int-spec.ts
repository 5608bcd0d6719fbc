/**
 * The audit trail at the exchange, on real Postgres and NATS: who changed what, recorded from
 * the events of the change (users by password, a service account by its key, a node, the
 * exchange itself), once each even when an event comes twice, never a node's routine report;
 * read by filter and page; and the verify route finding a record edited or removed in the
 * database.
 */
import { connectBus, type BusConnection } from '@careen/bus';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import {
  basic,
  bearer,
  eventually,
  http,
  readStream,
  ROOT_PASSWORD,
  rowsVisited,
  seededNode,
  seededUser,
  seedExchange,
  useTestInfra,
  withClient,
  type Credentials,
} from '@careen/testing';
import { agentPackage } from '../agent-packages/agent-package.fixtures';
import { UNEXPORTED_RECORDS } from './audit-log.store';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const ada = seededUser('acme', 'ada');
const otto = seededUser('acme', 'otto');
const NODES = ['n1', 'n2'];

interface Record {
  seq: number;
  actor: string;
  actorKind: string;
  via: string | null;
  action: string;
  target: string;
  eventId: string;
  source: string | null;
  requestId: string | null;
}

describe('the audit trail', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let bus: BusConnection;
  let key: { id: string; key: string };
  const call = (method: string, path: string, body?: unknown, auth: Credentials = ada) =>
    http(exchange.url, method, path, { auth, body });
  const policy = (name: string) => `/v1/orgs/acme/management-policies/${name}`;
  const publish = (name: string, body: object = {}) =>
    call('PUT', policy(name), {
      nodes: NODES,
      enabled: true,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', duration: 600 },
      ...body,
    });
  const trail = async (query: string): Promise<Record[]> => {
    const answer = await call('GET', `/v1/orgs/acme/audit?${query}`);
    expect(answer.status).toBe(200);
    return answer.body.items as Record[];
  };
  /** The trail's records of `target`, once `count` of them are there. */
  const recordsOf = (target: string, count: number) =>
    eventually(async () => {
      const records = await trail(`target=${encodeURIComponent(target)}`);
      expect(records).toHaveLength(count);
      return records;
    });

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    bus = await connectBus({ url: infra.natsUrl, name: 'audit-test' });
    await seedExchange(exchange.url, {
      acme: { users: { ada: 'orgAdmin', otto: 'operator' }, nodes: NODES },
    });
    const uploaded = await http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: basic('root', 'root', ROOT_PASSWORD),
      rawBody: await agentPackage('2.0.0'),
      headers: { 'content-type': 'application/gzip' },
    });
    expect(uploaded.status).toBe(201);
    expect((await call('POST', '/v1/orgs/acme/service-accounts', { name: 'ci' })).status).toBe(201);
    key = (await call('POST', '/v1/orgs/acme/service-accounts/ci/keys', { scopes: ['policies:write'] })).body;
  });

  afterAll(async () => {
    await bus.close();
    await exchange.close();
  });

  it('records who changed what, by which credential, in order', async () => {
    expect((await publish('web')).status).toBe(201);
    expect((await call('POST', `${policy('web')}/pause`, undefined, otto)).status).toBe(200);
    expect((await call('POST', `${policy('web')}/resume`, {}, bearer(key.key))).status).toBe(200);
    const records = await recordsOf('managementPolicy/web', 3);
    expect(records.map((record) => [record.action, record.actor, record.actorKind, record.via])).toEqual([
      ['managementPolicy.published', 'acme/ada', 'user', 'password'],
      ['managementPolicy.paused', 'acme/otto', 'user', 'password'],
      ['managementPolicy.resumed', 'acme/sa:ci', 'service', `key:${key.id}`],
    ]);
    expect(records[0]!.source).toMatch(/127\.0\.0\.1/);
    expect(records[0]!.requestId).toBeTruthy();
    expect(records[1]!.seq).toBeGreaterThan(records[0]!.seq);
    expect(
      (await trail(`actor=acme/otto&target=managementPolicy/web`)).map((record) => record.action),
    ).toEqual(['managementPolicy.paused']);
  });

  it("records a node's management status, not its routine status report; the exchange's own disable as its own", async () => {
    await publish('fragile', { failureThreshold: 1 });
    const asN1 = seededNode('acme', 'n1');
    const report = { agentVersion: { package: '1.0.0', failed: null, upgradeStart: null }, workloads: [] };
    expect((await call('PUT', '/v1/orgs/acme/nodes/n1/status', report, asN1)).status).toBe(200);
    expect(
      (
        await call(
          'PUT',
          '/v1/orgs/acme/nodes/n1/managementStatus/fragile',
          { status: 'failed', error: 'bad' },
          asN1,
        )
      ).status,
    ).toBe(200);
    const disabled = await recordsOf('managementPolicy/fragile', 2);
    expect(disabled.map((record) => [record.action, record.actor])).toEqual([
      ['managementPolicy.published', 'acme/ada'],
      ['managementPolicy.disabled', 'careen:exchange'],
    ]);
    const byNode = await recordsOf('managementStatus/n1', 1);
    expect(byNode.map((record) => [record.actor, record.actorKind, record.via])).toEqual([
      ['acme/n1', 'node', 'node-token'],
    ]);
    expect((await trail('target=node/n1')).map((record) => record.action)).not.toContain(
      'node.status-reported',
    );
  });

  it('records a write refused to someone known, with the route, as refused', async () => {
    const refused = await call('PUT', policy('not-for-operators'), { nodes: NODES, enabled: false }, otto);
    expect(refused.status).toBe(403);
    const [record] = await eventually(async () => {
      const records = await trail('action=http.refused&actor=acme/otto');
      expect(records).toHaveLength(1);
      return records;
    });
    expect(record).toMatchObject({
      target: 'PUT /v1/orgs/:org/management-policies/:name',
      outcome: 'refused',
      via: 'password',
      service: 'exchange',
    });
  });

  it('records an event that comes twice once', async () => {
    const [sent] = await readStream(bus, 'CAREEN_CHANGES', {
      count: 1,
      filterSubject: 'careen.changes.acme.managementPolicy.web',
    });
    const again = natsHeaders();
    for (const [name, value] of Object.entries(sent!.headers))
      if (name !== 'Nats-Msg-Id') again.set(name, value);
    await bus.js.publish(sent!.subject, JSON.stringify(sent!.body), {
      headers: again,
      msgID: 'a-second-time',
    });
    // A later change is recorded after the copy, which the consumer read first.
    await publish('later');
    await recordsOf('managementPolicy/later', 1);
    const copies = (await trail('target=managementPolicy/web')).filter(
      (record) => record.eventId === sent!.headers['ce-id'],
    );
    expect(copies).toHaveLength(1);
  });

  it('exports each record, as stored, on careen.audit.records.<org>', async () => {
    const stored = await trail('limit=1000');
    const exported = await eventually(async () => {
      const info = await bus.jsm.streams.info('CAREEN_AUDIT', {
        subjects_filter: 'careen.audit.records.acme',
      });
      expect(info.state.subjects?.['careen.audit.records.acme']).toBeGreaterThanOrEqual(stored.length);
      return readStream(bus, 'CAREEN_AUDIT', {
        count: stored.length,
        filterSubject: 'careen.audit.records.acme',
      });
    });
    expect(exported.map((message) => message.body)).toEqual(stored);
    expect(exported[0]!.headers['ce-type']).toBe('careen.audit.record');
  });

  it('reads only the records it exports, however long the trail it exported', async () => {
    await withClient(infra.databaseUrl, async (client) => {
      await client.query(
        `INSERT INTO exchange.audit_log (org, seq, event_id, at, actor, actor_kind, service, action, target,
                                         outcome, prev_hash, hash)
         SELECT 'archive', n, 'archive-' || n, now(), 'archive/ada', 'user', 'exchange', 'x', 'y', 'ok', 'p', 'h'
           FROM generate_series(1, 5000) AS n`,
      );
      await client.query(
        `INSERT INTO exchange.audit_heads (org, seq, hash, anchor_hash, exported_seq) VALUES ('archive', 5000, 'h', 'a', 5000)`,
      );
      await client.query('ANALYZE exchange.audit_log');
      // Whatever acme has left to export, a round reads it and the heads, not the archive.
      expect(await rowsVisited(client, UNEXPORTED_RECORDS, [1000])).toBeLessThan(100);
    });
  });

  it('pages through the trail, oldest first', async () => {
    const all = await trail('limit=1000');
    const paged: Record[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const page: { body: { items: Record[]; next: number | null; total: number } } = await call(
        'GET',
        `/v1/orgs/acme/audit?limit=3&after=${after}`,
      );
      expect(page.body.total).toBe(all.length);
      paged.push(...page.body.items);
      after = page.body.next;
    }
    expect(paged.map((record) => record.seq)).toEqual(all.map((record) => record.seq));
  });

  it('verifies the chain, and names the record edited, removed or cut from the end', async () => {
    const verified = await call('GET', '/v1/orgs/acme/audit/verify');
    expect(verified.body).toMatchObject({ org: 'acme', verified: true, broken: null });
    expect(verified.body.checked).toBe(verified.body.head.seq);
    const database = (sql: string) => withClient(infra.databaseUrl, (client) => client.query(sql));

    await database(`UPDATE exchange.audit_log SET actor = 'acme/mallory' WHERE org = 'acme' AND seq = 2`);
    expect((await call('GET', '/v1/orgs/acme/audit/verify')).body).toMatchObject({
      verified: false,
      checked: 1,
      broken: { seq: 2, problem: 'its fields do not give its hash: it was edited' },
    });

    await database(`DELETE FROM exchange.audit_log WHERE org = 'acme' AND seq = 2`);
    expect((await call('GET', '/v1/orgs/acme/audit/verify')).body.broken).toMatchObject({
      seq: 3,
      problem: 'does not follow record 1: a record before it was removed, added or changed',
    });
  });

  it('is for org admins: an operator and a key are refused; bad filters are 400', async () => {
    expect((await call('GET', '/v1/orgs/acme/audit', undefined, otto)).status).toBe(403);
    expect((await call('GET', '/v1/orgs/acme/audit', undefined, bearer(key.key))).status).toBe(403);
    for (const query of ['since=yesterday', 'limit=0', 'after=-1', 'colour=red'])
      expect((await call('GET', `/v1/orgs/acme/audit?${query}`)).status).toBe(400);
  });
});
