/**
 * The notifier delivering maintenance events to webhooks (small HTTP receivers started here) on
 * the real exchange (tokens), Postgres and JetStream, with events published as the maintenance
 * service publishes them: both formats, signatures a Standard Webhooks library verifies, the
 * scope and state filters, a receiver down for a while, one that never comes back, secret
 * rotation, the subscribed question, and what is refused.
 */
import { connectBus, cloudEventHeaders, type BusConnection } from '@careen/bus';
import {
  MaintenanceAdminEvent,
  MaintenanceProjectEvent,
  NOTIFIER_SUBSCRIBED_SUBJECT,
  type EventDefinition,
} from '@careen/contracts';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { type NotifierConfig } from '@careen/notifier/src/notifier.config';
import { notifierService } from '@careen/notifier/src/notifier.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, useTestInfra, type Credentials } from '@careen/testing';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { runCli } from '@careen/cli/src/run-cli';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = basic('root', 'root', 'root-password-1');
const ADA = basic('acme', 'ada', 'ada-password');
const BEA = basic('beta', 'bea', 'bea-password');

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: records what it is sent, answering `status()` (503 while "down"). */
class Receiver {
  readonly received: Received[] = [];
  status = () => 204;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const status = this.status();
        if (status < 300) this.received.push({ headers: request.headers, body });
        response.writeHead(status);
        response.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  states(): string[] {
    return this.received.map((each) => (JSON.parse(each.body) as { state: string }).state);
  }
}

describe('notifier: webhook subscriptions', () => {
  const infra = useTestInfra();
  let notifier: InProcessService<NotifierConfig>;
  let exchangeUrl: string;
  let workDir: string;
  let bus: BusConnection;
  const receivers: Receiver[] = [];

  const call = (method: string, path: string, body?: unknown, auth: Credentials = ADA) =>
    http(notifier.url, method, path, { auth, body });
  const receiver = async () => {
    const started = await new Receiver().start();
    receivers.push(started);
    return started;
  };
  const subscribe = async (body: object) => {
    const answer = await call('POST', '/v1/subscriptions', {
      kind: 'webhook',
      format: 'cloudevents',
      ...body,
    });
    expect([answer.status, answer.body.message]).toEqual([201, undefined]);
    return answer.body as { id: string; secret: string };
  };
  const publish = async <P extends object>(
    event: EventDefinition<P, string[]>,
    token: string,
    payload: P,
  ) => {
    const id = `test-${randomUUID()}`;
    await bus.js.publish(event.subject(token), JSON.stringify(payload), {
      msgID: id,
      headers: cloudEventHeaders({
        id,
        type: event.type,
        source: 'careen/maintenance-session',
        time: new Date().toISOString(),
      }),
    });
    return id;
  };
  const projectEvent = (project: string, state: string, org = 'acme', more: object = {}) =>
    publish(MaintenanceProjectEvent as EventDefinition<object, string[]>, project, {
      session_id: 's-1',
      state,
      project_id: project,
      org,
      instance_ids: `http://maintenance:8082/v1/maintenance/s-1/${project}?capability=c`,
      reply_url: `http://maintenance:8082/v1/maintenance/s-1/${project}?capability=c`,
      actions_at: '2026-12-01T02:00:00.000Z',
      metadata: {},
      ...more,
    });

  beforeAll(async () => {
    const exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'root-password-1',
    });
    exchangeUrl = exchange.url;
    workDir = await mkdtemp(join(tmpdir(), 'careen-cli-notifier-'));
    for (const [org, user, password] of [
      ['acme', 'ada', 'ada-password'],
      ['beta', 'bea', 'bea-password'],
    ]) {
      await http(exchange.url, 'POST', '/v1/orgs', { auth: ROOT, body: { id: org } });
      await http(exchange.url, 'POST', `/v1/orgs/${org}/users`, {
        auth: ROOT,
        body: { username: user, password, role: 'orgAdmin' },
      });
    }
    notifier = await startServiceInProcess(notifierService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.0/8',
      CAREEN_NOTIFIER_EXCHANGE_PASSWORD: 'root-password-1',
      CAREEN_NOTIFIER_RETRY_BASE_MS: '50',
      CAREEN_NOTIFIER_RETRY_MAX_MS: '200',
      CAREEN_NOTIFIER_DELIVERY_DEADLINE_SECONDS: '3',
      CAREEN_NOTIFIER_POLL_MS: '50',
      CAREEN_LOG_LEVEL: process.env.DEBUG_NOTIFIER ? 'debug' : 'error',
    });
    bus = await connectBus({ url: infra.natsUrl, name: 'notifier-test' });
    infra.track(() => bus.close());
  });

  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
    await notifier?.close();
    for (const each of receivers) await each.stop();
  });

  it('delivers a project event as a signed CloudEvent that a Standard Webhooks library verifies', async () => {
    const hook = await receiver();
    const { secret } = await subscribe({ scope: 'project', project_id: 'shop', url: hook.url });
    expect(secret).toMatch(/^whsec_/);
    const id = await projectEvent('shop', 'MAINTENANCE');
    await eventually(() => expect(hook.received).toHaveLength(1));
    const [delivered] = hook.received;
    expect(delivered!.headers).toMatchObject({
      'ce-specversion': '1.0',
      'ce-id': id,
      'ce-type': 'careen.maintenance.project-event',
      'ce-source': 'careen/maintenance-session',
      'webhook-id': id,
      'content-type': 'application/json',
    });
    const headers = delivered!.headers as Record<string, string>;
    expect(new Webhook(secret).verify(delivered!.body, headers)).toMatchObject({
      state: 'MAINTENANCE',
      project_id: 'shop',
    });
    expect(() =>
      new Webhook(secret).verify(delivered!.body.replace('MAINTENANCE', 'DOWN_SCALE'), headers),
    ).toThrow();
  });

  it("delivers in AODH's event-alarm shape, and admin events to admin subscriptions", async () => {
    const hook = await receiver();
    await subscribe({ scope: 'project', project_id: 'aodh-app', url: hook.url, format: 'aodh' });
    const admin = await receiver();
    await subscribe({ scope: 'admin', hosts: ['h1'], url: admin.url, format: 'aodh' });
    await projectEvent('aodh-app', 'PREPARE_MAINTENANCE', 'acme', {
      host: 'h1',
      allowed_actions: ['MIGRATE'],
    });
    await publish(MaintenanceAdminEvent as EventDefinition<object, string[]>, 'h1', {
      session_id: 's-1',
      state: 'IN_MAINTENANCE',
      project_id: 'acme',
      host: 'h1',
    });
    await publish(MaintenanceAdminEvent as EventDefinition<object, string[]>, 'h2', {
      session_id: 's-1',
      state: 'IN_MAINTENANCE',
      project_id: 'acme',
      host: 'h2',
    });
    await eventually(() => expect(hook.received).toHaveLength(1));
    const alarm = JSON.parse(hook.received[0]!.body);
    expect(alarm).toMatchObject({ current: 'alarm', previous: 'ok', reason_data: { type: 'event' } });
    expect(alarm.reason_data.event.event_type).toBe('maintenance.scheduled');
    const traits = Object.fromEntries(
      (alarm.reason_data.event.traits as [string, number, unknown][]).map(([name, type, value]) => [
        name,
        [type, value],
      ]),
    );
    expect(traits).toMatchObject({
      state: [1, 'PREPARE_MAINTENANCE'],
      project_id: [1, 'aodh-app'],
      actions_at: [4, '2026-12-01T02:00:00.000Z'],
      allowed_actions: [1, '["MIGRATE"]'],
      host: [1, 'h1'],
    });
    await eventually(() => expect(admin.received).toHaveLength(1));
    const hostAlarm = JSON.parse(admin.received[0]!.body);
    expect(hostAlarm.reason_data.event.event_type).toBe('maintenance.host');
    expect(hostAlarm.reason_data.event.traits).toContainEqual(['host', 1, 'h1']);
  });

  it("sends a subscription only its own org's project, in the states it asked for", async () => {
    const hook = await receiver();
    await subscribe({
      scope: 'project',
      project_id: 'filtered',
      url: hook.url,
      states: ['MAINTENANCE_COMPLETE'],
    });
    await projectEvent('filtered', 'MAINTENANCE');
    await projectEvent('filtered', 'MAINTENANCE_COMPLETE', 'beta');
    await projectEvent('other', 'MAINTENANCE_COMPLETE');
    const last = await projectEvent('filtered', 'MAINTENANCE_COMPLETE');
    await eventually(() => expect(hook.received.map((each) => each.headers['ce-id'])).toEqual([last]));
  });

  it("sends a subscription of all projects every project of its org, and no other org's", async () => {
    const hook = await receiver();
    const made = await call(
      'POST',
      '/v1/subscriptions',
      { kind: 'webhook', format: 'cloudevents', scope: 'all-projects', url: hook.url },
      BEA,
    );
    expect(made.status).toBe(201);
    const wanted = [await projectEvent('north', 'MAINTENANCE', 'beta')];
    await projectEvent('north', 'MAINTENANCE', 'acme');
    wanted.push(await projectEvent('south', 'MAINTENANCE', 'beta'));
    await eventually(() => expect(hook.received.map((each) => each.headers['ce-id'])).toEqual(wanted));
    // Org beta has no subscriber again, as the tests below expect.
    expect((await call('DELETE', `/v1/subscriptions/${made.body.id}`, undefined, BEA)).status).toBe(204);
  });

  it('gives a receiver that was down every event, in order, once it is back', async () => {
    const hook = await receiver();
    let down = true;
    hook.status = () => (down ? 503 : 204);
    const { id } = await subscribe({ scope: 'project', project_id: 'flaky', url: hook.url });
    const states = [
      'MAINTENANCE',
      'PREPARE_MAINTENANCE',
      'INSTANCE_ACTION_DONE',
      'PLANNED_MAINTENANCE',
      'MAINTENANCE_COMPLETE',
    ];
    for (const state of states) await projectEvent('flaky', state);
    // The oldest is tried again and again; the others wait behind it, in order.
    await eventually(async () => {
      const items = (await call('GET', `/v1/deliveries?subscription=${id}`)).body.items as {
        attempts: number;
      }[];
      expect(items.map((item) => item.attempts)).toEqual([0, 0, 0, 0, expect.any(Number)]);
      expect(items.at(-1)!.attempts).toBeGreaterThan(1);
    });
    down = false;
    await eventually(() => expect(hook.states()).toEqual(states));
    const listed = (await call('GET', `/v1/deliveries?subscription=${id}&state=delivered`)).body;
    expect(listed.total).toBe(5);
  });

  it('dead-letters what a receiver that never comes back is owed, lists it, and sends it again on request', async () => {
    const broken = await receiver();
    broken.status = () => 500;
    const healthy = await receiver();
    const { id } = await subscribe({ scope: 'project', project_id: 'doomed', url: broken.url });
    await subscribe({ scope: 'project', project_id: 'doomed', url: healthy.url });
    await projectEvent('doomed', 'MAINTENANCE');
    // The healthy subscriber is not held back by the broken one.
    await eventually(() => expect(healthy.received).toHaveLength(1), { timeoutMs: 2_000 });
    const dead = await eventually(
      async () => {
        const listed = (await call('GET', `/v1/deliveries?subscription=${id}&state=dead`)).body;
        expect(listed.total).toBe(1);
        return listed.items[0];
      },
      { timeoutMs: 10_000 },
    );
    expect(dead.last_error).toBe('the receiver answered 500');
    expect(dead.attempts).toBeGreaterThan(2);
    broken.status = () => 204;
    expect((await call('POST', `/v1/deliveries/${dead.id}/redeliver`)).body.state).toBe('pending');
    await eventually(() => expect(broken.received).toHaveLength(1));
    expect((await call('POST', `/v1/deliveries/${dead.id}/redeliver`)).status).toBe(409);
  });

  it('signs with both secrets while a rotation overlaps', async () => {
    const hook = await receiver();
    const { id, secret: old } = await subscribe({ scope: 'project', project_id: 'rotating', url: hook.url });
    const rotated = await call('POST', `/v1/subscriptions/${id}/rotate-secret`, { overlap_seconds: 60 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(old);
    expect(rotated.body.secrets).toEqual([{ expires_at: expect.any(String) }, { expires_at: null }]);
    await projectEvent('rotating', 'MAINTENANCE');
    await eventually(() => expect(hook.received).toHaveLength(1));
    const { body, headers } = hook.received[0]!;
    for (const secret of [old, rotated.body.secret as string])
      expect(() => new Webhook(secret).verify(body, headers as Record<string, string>)).not.toThrow();
    expect((await call('GET', `/v1/subscriptions/${id}`)).body.secret).toBeUndefined();
  });

  it('answers whether a project has a subscriber, for the maintenance service', async () => {
    const ask = async (question: object) =>
      (
        await bus.nc.request(NOTIFIER_SUBSCRIBED_SUBJECT, JSON.stringify(question), { timeout: 5_000 })
      ).json();
    expect(await ask({ org: 'acme', project_id: 'shop' })).toEqual({ subscribed: true });
    expect(await ask({ org: 'acme', project_id: 'nobody' })).toEqual({ subscribed: false });
    expect(await ask({ org: 'beta', project_id: 'shop' })).toEqual({ subscribed: false });
    expect(await ask({ project_id: 'shop' })).toMatchObject({ error: expect.stringContaining('org') });
  });

  it("keeps an org's subscriptions and deliveries from another org's users", async () => {
    const { id } = await subscribe({ scope: 'all-projects', url: (await receiver()).url });
    expect((await call('GET', `/v1/subscriptions/${id}`, undefined, BEA)).status).toBe(403);
    expect((await call('GET', '/v1/subscriptions?org=acme', undefined, BEA)).status).toBe(403);
    expect((await call('GET', '/v1/deliveries?org=acme', undefined, BEA)).status).toBe(403);
    expect((await call('DELETE', `/v1/subscriptions/${id}`, undefined, BEA)).status).toBe(403);
    expect((await call('GET', '/v1/subscriptions', undefined, BEA)).body.total).toBe(0);
    expect((await call('DELETE', `/v1/subscriptions/${id}`)).status).toBe(204);
    expect((await call('GET', `/v1/subscriptions/${id}`)).status).toBe(404);
  });

  it('is steered with careen subscription and careen deliveries', async () => {
    const careen = async (args: string[]) => {
      let output = '';
      let stderr = '';
      const code = await runCli(args, {
        stdout: { write: (chunk: string) => (output += chunk) },
        stderr: { write: (chunk: string) => (stderr += chunk) },
        env: {
          CAREEN_EXCHANGE_URL: exchangeUrl,
          CAREEN_NOTIFIER_URL: notifier.url,
          CAREEN_ORG: 'acme',
          CAREEN_USER: 'ada',
          CAREEN_PASSWORD: 'ada-password',
          CAREEN_CONFIG_DIR: workDir,
        },
      });
      return { code, output, stderr };
    };
    const hook = await receiver();
    const added = await careen([
      'subscription',
      'add',
      '--project',
      'cli-app',
      '--url',
      hook.url,
      '--format',
      'aodh',
    ]);
    expect(added.code).toBe(0);
    const [, id] = /^subscription (\S+)$/m.exec(added.output)!;
    const [, secret] = /shown once, keep it with the receiver\): (whsec_\S+)$/m.exec(added.output)!;
    expect((await careen(['subscription', 'list'])).output).toMatch(
      new RegExp(`^${id} +project cli-app +\\(all\\) +webhook aodh`, 'm'),
    );
    const event = await projectEvent('cli-app', 'MAINTENANCE');
    await eventually(() => expect(hook.received).toHaveLength(1));
    expect(() =>
      new Webhook(secret!).verify(
        hook.received[0]!.body,
        hook.received[0]!.headers as Record<string, string>,
      ),
    ).not.toThrow();
    expect((await careen(['deliveries', '--subscription', id!])).output).toMatch(
      new RegExp(`${event} +delivered +1`),
    );
    expect((await careen(['subscription', 'rotate-secret', id!, '--overlap', '10'])).output).toMatch(
      /^new signing secret \(shown once\): whsec_/,
    );
    // Asked like every other remove: without a terminal to ask, only --yes removes.
    expect(await careen(['subscription', 'remove', id!])).toEqual({
      code: 1,
      output: '',
      stderr: `error: not removing subscription ${id} without confirmation: pass --yes\n`,
    });
    expect((await careen(['subscription', 'show', id!])).code).toBe(0);
    expect((await careen(['subscription', 'remove', id!, '--yes'])).output).toBe(
      `removed subscription ${id}\n`,
    );
    const unscoped = await careen(['subscription', 'add', '--url', hook.url]);
    expect(unscoped.code).not.toBe(0);
    expect(unscoped.stderr).toContain('exactly one of --project P, --all-projects and --admin');
    const refused = await careen(['subscription', 'add', '--all-projects', '--url', 'http://10.0.0.9/']);
    expect(refused.stderr).toContain('private, loopback or link-local');
  });

  it.each([
    ['a URL that is not one', { scope: 'all-projects', url: 'not a url' }, 'absolute http:// or https://'],
    [
      'a private address not allowed',
      { scope: 'all-projects', url: 'http://10.1.2.3/hook' },
      'private, loopback or link-local',
    ],
    [
      'an unknown format',
      { scope: 'all-projects', url: 'http://127.0.0.1:1/', format: 'xml' },
      'format must be one of',
    ],
    [
      'an unknown state',
      { scope: 'all-projects', url: 'http://127.0.0.1:1/', states: ['REBOOT'] },
      'states must be one of',
    ],
    [
      'an admin state for projects',
      { scope: 'all-projects', url: 'http://127.0.0.1:1/', states: ['IN_MAINTENANCE'] },
      'not a state of all-projects events',
    ],
    [
      'a project scope without a project',
      { scope: 'project', url: 'http://127.0.0.1:1/' },
      'the project scope names a project',
    ],
    [
      'an unknown field',
      { scope: 'all-projects', url: 'http://127.0.0.1:1/', colour: 'red' },
      'property colour should not exist',
    ],
  ])('refuses %s with 400, storing nothing', async (_case, body, message) => {
    const before = (await call('GET', '/v1/subscriptions')).body.total;
    const answer = await call('POST', '/v1/subscriptions', {
      kind: 'webhook',
      format: 'cloudevents',
      ...body,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain(message);
    expect((await call('GET', '/v1/subscriptions')).body.total).toBe(before);
  });

  it('refuses a rotation without its overlap', async () => {
    const { id } = await subscribe({ scope: 'all-projects', url: (await receiver()).url });
    const answer = await call('POST', `/v1/subscriptions/${id}/rotate-secret`, {});
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('overlap_seconds');
  });
});
