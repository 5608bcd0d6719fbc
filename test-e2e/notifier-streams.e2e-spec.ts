/**
 * The notifier's other two ways to a subscriber, on a nats-server that enforces decentralized
 * JWT authorization (every service connects with its creds): `nats` subscriptions, whose
 * credentials the server limits to the project's consumer and replies (the reference VNF manager
 * follows and answers with them), and the server-sent event stream, resumable with
 * Last-Event-ID and followed by `careen events`. Also: a project of another org is refused.
 */
import { cloudEventHeaders, connectBus, type BusConnection } from '@careen/bus';
import { runCli } from '@careen/cli/src/run-cli';
import {
  MaintenanceProjectEvent,
  MaintenanceReply,
  type MaintenanceProjectEventPayload,
  STREAMS,
} from '@careen/contracts';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { notifierService } from '@careen/notifier/src/notifier.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, useTestInfra, type Credentials } from '@careen/testing';
import { ReferenceVnfManager } from '@careen/vnf-manager/src/reference-vnf-manager';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type NotifierConfig } from '@careen/notifier/src/notifier.config';

const ROOT = basic('root', 'root', 'root-password-1');
const ADA = basic('acme', 'ada', 'ada-password');
const ANN = basic('acme', 'ann', 'ann-password');
const BEA = basic('beta', 'bea', 'bea-password');

interface NatsSubscriptionAnswer {
  id: string;
  credentials: string;
  nats: { stream: string; durable: string; subject: string; reply_subject: string; inbox_prefix: string };
}

type StreamedEvent = {
  id: string;
  event: string;
  data: { id: string; data: MaintenanceProjectEventPayload };
};

const authorization = (auth: Credentials) =>
  auth && 'basic' in auth ? `Basic ${Buffer.from(auth.basic).toString('base64')}` : '';

/**
 * Opens a server-sent event stream; resolves once it is open (the server's first line, `retry`,
 * comes after its consumer is in place), with a reader of the next `count` events.
 */
async function openEvents(url: string, auth: Credentials, lastEventId?: string) {
  const headers: Record<string, string> = { authorization: authorization(auth) };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const stop = new AbortController();
  const response = await fetch(url, { headers, signal: stop.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const chunks = response.body![Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  let buffer = decoder.decode((await chunks.next()).value as Uint8Array);
  expect(buffer).toMatch(/^retry: \d+/);
  return async (count: number): Promise<StreamedEvent[]> => {
    const events: StreamedEvent[] = [];
    try {
      while (events.length < count) {
        let end: number;
        while (events.length < count && (end = buffer.indexOf('\n\n')) >= 0) {
          const fields = Object.fromEntries(
            buffer
              .slice(0, end)
              .split('\n')
              .filter((line) => !line.startsWith(':') && line.includes(': '))
              .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
          );
          buffer = buffer.slice(end + 2);
          if (fields.data) {
            events.push({ id: fields.id ?? '', event: fields.event ?? '', data: JSON.parse(fields.data) });
          }
        }
        if (events.length < count) buffer += decoder.decode((await chunks.next()).value as Uint8Array);
      }
    } finally {
      stop.abort();
    }
    return events;
  };
}

describe('notifier: nats subscriptions and the event stream, with NATS authorization on', () => {
  const infra = useTestInfra({ natsAuth: true });
  let notifier: InProcessService<NotifierConfig>;
  let exchangeUrl: string;
  let bus: BusConnection;
  let workDir: string;

  const call = (method: string, path: string, body?: unknown, auth: Credentials = ADA) =>
    http(notifier.url, method, path, { auth, body });
  /** Each published event's stream sequence, its id in the SSE stream. */
  const sequences = new Map<string, number>();
  const projectEvent = async (project: string, state: string, org = 'acme', session = 's-1') => {
    const id = `test-${randomUUID()}`;
    const ack = await bus.js.publish(
      MaintenanceProjectEvent.subject(project),
      JSON.stringify({
        session_id: session,
        state,
        project_id: project,
        org,
        instance_ids: `http://127.0.0.1:1/v1/maintenance/${session}/${project}?capability=c`,
        reply_url: `http://127.0.0.1:1/v1/maintenance/${session}/${project}?capability=c`,
        actions_at: '2026-12-01T02:00:00.000Z',
        metadata: {},
      }),
      {
        msgID: id,
        headers: cloudEventHeaders({
          id,
          type: MaintenanceProjectEvent.type,
          source: 'careen/maintenance-session',
          time: new Date().toISOString(),
        }),
      },
    );
    sequences.set(id, ack.seq);
    return id;
  };

  beforeAll(async () => {
    const credsFile = infra.nats.auth!.credsFile;
    const exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
      CAREEN_NATS_CREDS: credsFile,
    });
    exchangeUrl = exchange.url;
    for (const [org, user, password, role] of [
      ['acme', 'ada', 'ada-password', 'orgAdmin'],
      ['acme', 'ann', 'ann-password', 'operator'],
      ['beta', 'bea', 'bea-password', 'orgAdmin'],
    ] as const) {
      await http(exchange.url, 'POST', '/v1/orgs', { auth: ROOT, body: { id: org } });
      await http(exchange.url, 'POST', `/v1/orgs/${org}/users`, {
        auth: ROOT,
        body: { username: user, password, role },
      });
    }
    // Beta's project "ledger": named by one of its deployment policies.
    await http(exchange.url, 'PUT', '/v1/orgs/beta/services/ledger-1-0-0', {
      auth: ROOT,
      body: { url: 'beta.ledger', version: '1.0.0', arch: 'amd64', runtime: {} },
    });
    const policy = await http(exchange.url, 'PUT', '/v1/orgs/beta/deployment-policies/ledger', {
      auth: ROOT,
      body: {
        project: 'ledger',
        service: { org: 'beta', url: 'beta.ledger', versionRange: '>=1.0.0' },
        constraints: [],
        placement: { mode: 'all' },
      },
    });
    expect(policy.status).toBeLessThan(300);
    notifier = await startServiceInProcess(notifierService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_NATS_CREDS: credsFile,
      CAREEN_NOTIFIER_EXCHANGE_PASSWORD: 'root-password-1',
      CAREEN_NOTIFIER_NATS_ACCOUNT: infra.nats.auth!.account.publicKey,
      CAREEN_NOTIFIER_NATS_SIGNING_KEY: infra.nats.auth!.signingKeySeed,
      CAREEN_LOG_LEVEL: 'error',
    });
    bus = await connectBus({ url: infra.natsUrl, name: 'notifier-streams-test', credsFile });
    infra.track(() => bus.close());
    workDir = await mkdtemp(join(tmpdir(), 'careen-notifier-streams-'));
  });

  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
    await notifier?.close();
  });

  it('refuses a client without credentials: authorization is on', async () => {
    await expect(connect({ servers: infra.natsUrl, reconnect: false })).rejects.toThrow(/Authorization/i);
  });

  it("gives a nats subscriber its project's events and replies, and nothing else", async () => {
    const created = await call('POST', '/v1/subscriptions', {
      scope: 'project',
      project_id: 'shop',
      kind: 'nats',
    });
    expect([created.status, created.body.message]).toEqual([201, undefined]);
    const subscription = created.body as NatsSubscriptionAnswer;
    expect(subscription.credentials).toContain('BEGIN NATS USER JWT');
    expect(subscription.nats).toMatchObject({
      stream: 'CAREEN_MAINT',
      durable: `careen-sub-${subscription.id}`,
      subject: 'careen.maint.project.shop',
      reply_subject: 'careen.maint.reply.<session_id>.shop',
    });
    // Shown once: never again.
    expect((await call('GET', `/v1/subscriptions/${subscription.id}`)).body.credentials).toBeUndefined();
    const other = (
      await call('POST', '/v1/subscriptions', { scope: 'project', project_id: 'till', kind: 'nats' })
    ).body as NatsSubscriptionAnswer;

    // The reference VNF manager follows through the subscription and answers on the bus.
    const credsFile = join(workDir, 'shop.creds');
    await writeFile(credsFile, subscription.credentials);
    const vnfmBus = await connectBus({
      url: infra.natsUrl,
      name: 'vnfm-shop',
      credsFile,
      inboxPrefix: subscription.nats.inbox_prefix,
    });
    infra.track(() => vnfmBus.close());
    const seen: string[] = [];
    const manager = new ReferenceVnfManager({
      bus: vnfmBus,
      project: 'shop',
      follow: { via: 'nats', consumer: subscription.nats.durable },
      replyVia: 'bus',
      observe: (event) => seen.push(`${event.project_id} ${event.state}`),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await manager.start();
    infra.track(() => manager.stop());
    await projectEvent('till', 'MAINTENANCE', 'acme', 's-till');
    await projectEvent('shop', 'MAINTENANCE', 'acme', 's-shop');
    await eventually(() => expect(seen).toEqual(['shop MAINTENANCE']));
    const replies = await bus.jsm.consumers.add(STREAMS.maintenance.name, {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      filter_subject: MaintenanceReply.subject('s-shop', 'shop'),
    });
    const reply = await (await bus.js.consumers.get(STREAMS.maintenance.name, replies.name)).next();
    expect(reply?.json()).toEqual({ state: 'ACK_MAINTENANCE' });

    // With the same credentials: no other project's consumer, subject or reply subject.
    const enc = new TextEncoder();
    const nc = await connect({
      servers: infra.natsUrl,
      authenticator: credsAuthenticator(enc.encode(subscription.credentials)),
      inboxPrefix: subscription.nats.inbox_prefix,
    });
    infra.track(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await expect(jsm.consumers.info('CAREEN_MAINT', other.nats.durable)).rejects.toThrow(
      /Permissions Violation/,
    );
    await expect(
      jsm.consumers.add('CAREEN_MAINT', {
        durable_name: 'mine',
        filter_subject: 'careen.maint.project.till',
        ack_policy: AckPolicy.Explicit,
      }),
    ).rejects.toThrow(/Permissions Violation/);
    await expect(jetstream(nc).publish(MaintenanceReply.subject('s-till', 'till'), '{}')).rejects.toThrow(
      /Permissions Violation/,
    );
    const sniff = nc.subscribe('careen.maint.>');
    await nc.flush();
    await eventually(() => expect(sniff.isClosed()).toBe(true));

    // Removed, its consumer goes: the credentials read nothing more.
    expect((await call('DELETE', `/v1/subscriptions/${subscription.id}`)).status).toBe(204);
    await expect(jsm.consumers.info('CAREEN_MAINT', subscription.nats.durable)).rejects.toThrow(
      /consumer not found/i,
    );
  });

  it('issues a nats subscriber new credentials, and refuses them to other kinds', async () => {
    const { id } = (
      await call('POST', '/v1/subscriptions', { scope: 'project', project_id: 'renew', kind: 'nats' })
    ).body as NatsSubscriptionAnswer;
    const renewed = await call('POST', `/v1/subscriptions/${id}/credentials`, {});
    expect(renewed.status).toBe(200);
    expect(renewed.body.credentials).toContain('BEGIN USER NKEY SEED');
    const nc = await connect({
      servers: infra.natsUrl,
      authenticator: credsAuthenticator(new TextEncoder().encode(renewed.body.credentials)),
      inboxPrefix: renewed.body.nats.inbox_prefix,
    });
    await expect(
      (await jetstreamManager(nc)).consumers.info('CAREEN_MAINT', `careen-sub-${id}`),
    ).resolves.toBeDefined();
    await nc.close();
    const sse = await call('POST', '/v1/subscriptions', {
      scope: 'project',
      project_id: 'renew',
      kind: 'sse',
    });
    expect(sse.status).toBe(201);
    expect((await call('POST', `/v1/subscriptions/${sse.body.id}/credentials`, {})).status).toBe(409);
    expect((await call('POST', `/v1/subscriptions/${id}/rotate-secret`, { overlap_seconds: 0 })).status).toBe(
      409,
    );
  });

  it("streams the org's events of a project, resumable after the last one seen", async () => {
    const url = `${notifier.url}/v1/stream?project_id=cart`;
    // Without Last-Event-ID the stream starts with the next event.
    const reading = await openEvents(url, ANN);
    const first = await projectEvent('cart', 'MAINTENANCE');
    await projectEvent('cart', 'MAINTENANCE', 'beta');
    await projectEvent('other', 'MAINTENANCE');
    const second = await projectEvent('cart', 'DOWN_SCALE');
    const events = await reading(2);
    expect(events.map((each) => [each.event, each.data.id])).toEqual([
      ['MAINTENANCE', first],
      ['DOWN_SCALE', second],
    ]);
    expect(events[0]!.data).toMatchObject({
      specversion: '1.0',
      type: 'careen.maintenance.project-event',
      subject: 'careen.maint.project.cart',
      data: { state: 'MAINTENANCE', project_id: 'cart', org: 'acme' },
    });
    // Resumed after the first: the second again, then what came since.
    const third = await projectEvent('cart', 'MAINTENANCE_COMPLETE');
    const resumed = await (await openEvents(url, ANN, events[0]!.id))(2);
    expect(resumed.map((each) => each.data.id)).toEqual([second, third]);
    // Beta's user sees beta's events of the same project name, and none of acme's.
    const beta = await (await openEvents(url, BEA, '1'))(1);
    expect(beta.map((each) => each.data.data.org)).toEqual(['beta']);
  });

  it('follows the stream with careen events', async () => {
    const first = await projectEvent('desk', 'MAINTENANCE', 'acme', 's-desk');
    const second = await projectEvent('desk', 'MAINTENANCE_COMPLETE', 'acme', 's-desk');
    let output = '';
    const code = await runCli(['events', '--project', 'desk', '--after', '1', '--limit', '2'], {
      stdout: { write: (chunk: string) => (output += chunk) },
      stderr: { write: () => true },
      env: {
        CAREEN_EXCHANGE_URL: exchangeUrl,
        CAREEN_NOTIFIER_URL: notifier.url,
        CAREEN_ORG: 'acme',
        CAREEN_USER: 'ann',
        CAREEN_PASSWORD: 'ann-password',
        CAREEN_CONFIG_DIR: workDir,
      },
    });
    expect(code).toBe(0);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ MAINTENANCE +session s-desk +\(id \d+\)$/);
    expect(lines[1]).toMatch(/ MAINTENANCE_COMPLETE +session s-desk +\(id \d+\)$/);
    expect(lines.map((line) => /\(id (\d+)\)$/.exec(line)![1])).toEqual(
      [first, second].map((id) => String(sequences.get(id))),
    );
  });

  it.each([
    ['no project', '/v1/stream', ANN, {}, 400, 'project_id must be'],
    [
      'a malformed Last-Event-ID',
      '/v1/stream?project_id=cart',
      ANN,
      { 'last-event-id': 'x' },
      400,
      'Last-Event-ID "x"',
    ],
    ["another org's stream", '/v1/stream?project_id=cart&org=acme', BEA, {}, 403, ''],
  ])('refuses %s', async (_case, path, auth, headers, status, message) => {
    const answer = await fetch(`${notifier.url}${path}`, {
      headers: {
        ...headers,
        authorization: authorization(auth),
      },
    });
    expect(answer.status).toBe(status);
    expect(((await answer.json()) as { message: string }).message).toContain(message);
  });

  it.each([
    [
      'a project of another org',
      { scope: 'project', project_id: 'ledger', kind: 'nats' },
      'project "ledger" is another org\'s',
    ],
    ['a nats subscription of all projects', { scope: 'all-projects', kind: 'nats' }, 'takes one project'],
    [
      'a URL on an sse subscription',
      { scope: 'project', project_id: 'x', kind: 'sse', url: 'http://a/' },
      'url: only webhook',
    ],
    [
      'a webhook without its URL',
      { scope: 'project', project_id: 'x', kind: 'webhook', format: 'aodh' },
      'names its URL',
    ],
  ])('refuses %s with 400, storing nothing', async (_case, body, message) => {
    const before = (await call('GET', '/v1/subscriptions')).body.total;
    const answer = await call('POST', '/v1/subscriptions', body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain(message);
    expect((await call('GET', '/v1/subscriptions')).body.total).toBe(before);
  });

  // Last: it shuts the notifier down.
  it('ends the streams it serves when it shuts down, instead of waiting on them', async () => {
    const response = await fetch(`${notifier.url}/v1/stream?project_id=cart`, {
      headers: { authorization: authorization(ANN) },
    });
    const ended = response.text();
    await notifier.close();
    await expect(ended).resolves.toMatch(/^retry: \d+/);
  });
});
