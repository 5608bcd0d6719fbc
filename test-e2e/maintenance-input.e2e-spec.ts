/**
 * What the maintenance service refuses, each with a clear 4xx and nothing changed: bad session
 * requests (over HTTP and over the bus), a host already in an open session, and replies that
 * cannot be taken, over `reply_url` and on the reply subject (a malformed one dead-lettered).
 */
import { cloudEventHeaders } from '@careen/bus';
import {
  DLQ_REASON_HEADER,
  MAINTENANCE_REQUEST_SUBJECT,
  MaintenanceReply,
  type MaintenanceProjectEventPayload,
} from '@careen/contracts';
import { eventually, http, readStream, useTestInfra } from '@careen/testing';
import { randomUUID } from 'node:crypto';
import { ROOT, startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';

describe('maintenance sessions: what is refused', () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;
  let red: MaintenanceProjectEventPayload;
  let session: string;
  let eventsSeen = 0;

  /** The next event of this file's session sent to project red, in `state`. */
  const nextRedEvent = async (state: string): Promise<MaintenanceProjectEventPayload> => {
    for (;;) {
      eventsSeen += 1;
      const messages = await readStream(hub.bus, 'CAREEN_MAINT', {
        count: eventsSeen,
        filterSubject: 'careen.maint.project.red',
      });
      const event = messages.at(-1)!.body as MaintenanceProjectEventPayload;
      if (event.session_id === session && event.state === state) return event;
    }
  };
  const put = (url: string, body: unknown) => http(url, 'PUT', '', { body });
  const sessionState = async () => (await hub.call('GET', `/v1/maintenance/${session}`)).body;

  beforeAll(async () => {
    hub = await startMaintenanceHub(infra);
    const started = await hub.call('POST', '/v1/maintenance', { hosts: ['x1'], host_action: 'manual' });
    expect(started.status).toBe(201);
    session = started.body.session_id;
    red = await nextRedEvent('MAINTENANCE');
    expect(red).toMatchObject({ session_id: session, state: 'MAINTENANCE', project_id: 'red' });
  });

  afterAll(async () => {
    await hub?.close();
  });

  it.each([
    ['an unknown host', { hosts: ['ghost'] }, 'hosts[0]: no node "ghost" in the org'],
    ['a host listed twice', { hosts: ['h1', 'h1'] }, 'hosts[1]: host "h1" is listed twice'],
    ['an empty list', { hosts: [] }, 'hosts: the list of hosts is empty'],
    [
      'a selector matching nothing',
      { selector: { racks: ['nowhere'] } },
      'selector: the selector matches no node',
    ],
    ['an empty selector', { selector: {} }, 'selector: the selector names no criterion'],
    ['hosts and a selector', { hosts: ['h1'], selector: { racks: ['r0'] } }, 'give either hosts'],
    ['an unknown field', { hosts: ['h1'], colour: 'red' }, 'property colour should not exist'],
    ['a bad host action', { hosts: ['h1'], host_action: 'reboot' }, 'host_action.kind: kind must be one of'],
    ['an upgrade without a version', { hosts: ['h1'], host_action: 'agent-upgrade' }, 'host_action.version'],
    [
      'an upgrade to a version no package has',
      { hosts: ['h1'], host_action: { kind: 'agent-upgrade', version: '9.9.9' } },
      'host_action.version: no agent package of version "9.9.9" is published',
    ],
    [
      'seconds for a manual host action',
      { hosts: ['h1'], host_action: { kind: 'manual', seconds: 5 } },
      'host_action.seconds: the manual host action takes no seconds (only simulated does)',
    ],
    [
      'a version for a simulated host action',
      { hosts: ['h1'], host_action: { kind: 'simulated', version: '2.0.0' } },
      'host_action.version: the simulated host action takes no version (only agent-upgrade does)',
    ],
    ['a wrong type', { hosts: 'h1' }, 'hosts must be an array'],
    [
      'both actions_at and maintenance_at',
      { hosts: ['h1'], actions_at: '2030-01-01T00:00:00Z', maintenance_at: '2030-01-01T00:00:00Z' },
      'not both',
    ],
    [
      'bad project settings',
      { hosts: ['h1'], projects: { red: { reply_timeout_policy: 'shrug' } } },
      'projects.red',
    ],
    [
      'a project with nothing on the hosts',
      { hosts: ['h1'], projects: { green: {} } },
      'project "green" has no instance',
    ],
  ])('refuses %s with 400 naming it', async (_case, body, message) => {
    const answer = await hub.call('POST', '/v1/maintenance', body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain(message);
  });

  it('refuses a session id that is not a UUID with 400 naming the parameter, on each route', async () => {
    const problem = 'session must be a UUID (version 4), as the service gave it';
    for (const [method, path] of [
      ['GET', '/v1/maintenance/not-a-session'],
      ['POST', '/v1/maintenance/not-a-session/pause'],
      ['POST', '/v1/maintenance/not-a-session/hosts/x1/complete'],
      ['DELETE', '/v1/maintenance/not-a-session'],
    ] as const) {
      const answer = await hub.call(method, path);
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(answer.body.message).toContain(problem);
      expect(answer.body.details.fields).toEqual([
        { field: 'session', problems: [expect.stringContaining(problem)] },
      ]);
    }
    const reply = await put(`${hub.maintenance!.url}/v1/maintenance/not-a-session/red`, {
      state: 'ACK_MAINTENANCE',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain(problem);
  });

  it('describes every route in its OpenAPI document', async () => {
    const document = (await http(hub.maintenance!.url, 'GET', '/docs/openapi.json')).body;
    expect(
      Object.keys(document.paths)
        .filter((path) => path.startsWith('/v1/maintenance'))
        .sort(),
    ).toEqual([
      '/v1/maintenance',
      '/v1/maintenance/{session}',
      '/v1/maintenance/{session}/hosts/{host}/complete',
      '/v1/maintenance/{session}/pause',
      '/v1/maintenance/{session}/resume',
      '/v1/maintenance/{session}/{project}',
    ]);
    expect(Object.keys(document.paths['/v1/maintenance/{session}/{project}'])).toEqual(['get', 'put']);
  });

  it('answers 404 for an org the exchange does not know, and 403 for another org', async () => {
    const unknown = await hub.call('POST', '/v1/maintenance', { org: 'nowhere', hosts: ['h1'] }, ROOT);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('no org "nowhere" at the exchange');
    expect((await hub.call('POST', '/v1/maintenance', { org: 'root', hosts: ['h1'] })).status).toBe(403);
    expect((await hub.call('GET', `/v1/maintenance/${session}`, undefined, ROOT)).status).toBe(200);
  });

  it('refuses a host of an open session with 409 naming the session, and starts nothing', async () => {
    const before = (await hub.call('GET', '/v1/maintenance')).body.total;
    const answer = await hub.call('POST', '/v1/maintenance', { hosts: ['x2', 'x1'] });
    expect(answer.status).toBe(409);
    expect(answer.body.message).toBe(`host "x1" is in open session ${session}`);
    expect(answer.body.details.holders).toEqual([{ host: 'x1', session }]);
    expect((await hub.call('GET', '/v1/maintenance')).body.total).toBe(before);
  });

  it('answers a session request on the bus with the session or the errors, as the route would', async () => {
    const ask = async (body: unknown) =>
      (await hub.bus.nc.request(MAINTENANCE_REQUEST_SUBJECT, JSON.stringify(body), { timeout: 5_000 })).json<{
        statusCode?: number;
        message?: string;
        session_id?: string;
      }>();
    expect(await ask({ hosts: ['x3'] })).toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('org'),
    });
    expect(await ask({ org: 'acme', hosts: ['ghost'] })).toMatchObject({ statusCode: 400 });
    expect(await ask({ org: 'acme', hosts: ['x1'] })).toMatchObject({ statusCode: 409 });
    expect(
      (await hub.bus.nc.request(MAINTENANCE_REQUEST_SUBJECT, '{oops', { timeout: 5_000 })).json(),
    ).toMatchObject({
      statusCode: 400,
    });
    const created = await ask({ org: 'acme', hosts: ['x3'], host_action: 'manual' });
    expect(created.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await hub.call('DELETE', `/v1/maintenance/${created.session_id}`)).body.state).toBe(
      'MAINTENANCE_FAILED',
    );
  });

  it('refuses replies that cannot be taken, over reply_url, and takes the right one', async () => {
    const url = new URL(red.reply_url!);
    const wrong = new URL(url);
    wrong.searchParams.set('capability', 'not-the-capability');
    expect((await put(wrong.toString(), { state: 'ACK_MAINTENANCE' })).status).toBe(403);
    const noCapability = new URL(url);
    noCapability.search = '';
    expect((await put(noCapability.toString(), { state: 'ACK_MAINTENANCE' })).status).toBe(403);
    // red's capability opens red alone.
    const blue = new URL(url.toString().replace('/red?', '/blue?'));
    expect((await put(blue.toString(), { state: 'ACK_MAINTENANCE' })).status).toBe(404);
    const other = new URL(url.toString().replace(session, randomUUID()));
    expect((await put(other.toString(), { state: 'ACK_MAINTENANCE' })).status).toBe(404);

    const unknown = await put(red.reply_url!, { state: 'ACK_IN_MAINTENANCE' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('state must be ACK_<state> or NACK_<state>');
    expect((await put(red.reply_url!, { state: 'ACK_MAINTENANCE', session_id: randomUUID() })).status).toBe(
      400,
    );
    expect((await put(red.reply_url!, { state: 'ACK_PREPARE_MAINTENANCE' })).body).toMatchObject({
      statusCode: 409,
      message: 'project "red" has not been asked PREPARE_MAINTENANCE',
    });
    expect(
      (await put(red.reply_url!, { state: 'ACK_MAINTENANCE', instance_actions: { 'red-web@x1': 'MIGRATE' } }))
        .status,
    ).toBe(400);
    expect((await sessionState()).projects[0].asks[0].answer).toBe('pending');

    // Fenix's reply body, as its clients send it.
    const fenix = await put(red.reply_url!, {
      state: 'ACK_MAINTENANCE',
      session_id: session,
      instance_ids: ['red-web@x1'],
    });
    expect(fenix.status).toBe(200);
    // Sent again, as by a VNF manager that lost the answer to its PUT: the same answer, taken once,
    // and neither received nor refused again (the session itself goes on meanwhile).
    const redAnswers = async () =>
      (await sessionState()).timeline.filter(
        (entry: { kind: string; project_id: string | null }) =>
          entry.project_id === 'red' && (entry.kind === 'received' || entry.kind === 'refused'),
      );
    const before = await redAnswers();
    expect((await put(red.reply_url!, { state: 'ACK_MAINTENANCE' })).status).toBe(200);
    expect(await redAnswers()).toEqual(before);
    // Answering otherwise is a second reply to a closed ask.
    expect((await put(red.reply_url!, { state: 'NACK_MAINTENANCE' })).body.message).toContain(
      'that ask is closed (ack)',
    );

    const prepare = await nextRedEvent('PREPARE_MAINTENANCE');
    expect(prepare).toMatchObject({
      state: 'PREPARE_MAINTENANCE',
      host: 'x1',
      allowed_actions: ['MIGRATE', 'LIVE_MIGRATE'],
    });
    const instances = await http(prepare.instance_ids, 'GET', '');
    expect(instances.body).toMatchObject({
      instance_ids: ['red-web@x1'],
      instances: [{ instance_id: 'red-web@x1', host: 'x1' }],
    });
    const foreign = await put(prepare.reply_url!, {
      state: 'ACK_PREPARE_MAINTENANCE',
      instance_actions: { 'blue-web@h1': 'MIGRATE' },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toContain('"blue-web@h1", not an instance of project "red"');
    const own = await put(prepare.reply_url!, {
      state: 'ACK_PREPARE_MAINTENANCE',
      instance_actions: { 'red-web@x1': 'OWN_ACTION' },
    });
    expect(own.body.message).toContain('PREPARE_MAINTENANCE allows MIGRATE, LIVE_MIGRATE');
    expect(
      (
        await put(prepare.reply_url!, {
          state: 'ACK_PREPARE_MAINTENANCE',
          instance_actions: { 'red-web@x1': 'MIGRATE' },
        })
      ).status,
    ).toBe(200);
    await eventually(async () => expect((await sessionState()).hosts[0].phase).toBe('in-maintenance'), {
      timeoutMs: 20_000,
    });

    const refused = (await sessionState()).timeline.filter(
      (entry: { kind: string }) => entry.kind === 'refused',
    );
    expect(refused.length).toBeGreaterThanOrEqual(5);
  });

  it('dead-letters a malformed reply on the reply subject, and notes a reply the session cannot take', async () => {
    const headers = () =>
      cloudEventHeaders({
        id: randomUUID(),
        type: MaintenanceReply.type,
        source: 'test/vnfm',
        time: new Date().toISOString(),
      });
    await hub.bus.js.publish(MaintenanceReply.subject(session, 'red'), '{"state": 7}', {
      headers: headers(),
    });
    const [dead] = await readStream(hub.bus, 'CAREEN_DLQ', {
      count: 1,
      filterSubject: 'careen.dlq.maintenance-session',
    });
    expect(dead!.headers[DLQ_REASON_HEADER]).toContain('state must be ACK_<state> or NACK_<state>');

    const before = (await sessionState()).timeline.length;
    await hub.bus.js.publish(
      MaintenanceReply.subject(session, 'red'),
      JSON.stringify({ state: 'ACK_DOWN_SCALE' }),
      {
        headers: headers(),
      },
    );
    await eventually(async () => {
      const timeline = (await sessionState()).timeline;
      expect(timeline.length).toBeGreaterThan(before);
      expect(timeline.at(-1)).toMatchObject({
        kind: 'refused',
        state: 'ACK_DOWN_SCALE',
        detail: { via: 'bus' },
      });
    });
  });

  it('refuses to complete a host that is not its to complete, aborts, and refuses what comes after', async () => {
    expect((await hub.call('POST', `/v1/maintenance/${session}/hosts/h1/complete`)).status).toBe(409);
    expect((await hub.call('POST', `/v1/maintenance/${session}/hosts/bad host/complete`)).status).toBe(400);
    expect((await hub.call('GET', `/v1/maintenance/not-a-session`)).status).toBe(400);
    expect((await hub.call('GET', `/v1/maintenance/${randomUUID()}`)).status).toBe(404);

    const aborted = await hub.call('DELETE', `/v1/maintenance/${session}`);
    expect(aborted.body).toMatchObject({ state: 'MAINTENANCE_FAILED', failure: 'aborted by an admin' });
    expect((await hub.call('DELETE', `/v1/maintenance/${session}`)).status).toBe(409);
    expect((await put(red.reply_url!, { state: 'ACK_MAINTENANCE_COMPLETE' })).body).toMatchObject({
      statusCode: 409,
      message: expect.stringContaining('the session has ended (MAINTENANCE_FAILED)'),
    });
    // The host is back in service and free for the next session.
    await eventually(async () => {
      expect((await hub.exchangeCall('GET', '/v1/orgs/acme/nodes/x1')).body.schedulable).toBe(true);
      expect((await sessionState()).closed_at).not.toBeNull();
    });
    const next = await hub.call('POST', '/v1/maintenance', { hosts: ['x1'] });
    expect(next.status).toBe(201);
    await hub.call('DELETE', `/v1/maintenance/${next.body.session_id}`);
  });
});
