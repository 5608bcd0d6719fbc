/**
 * A VNF manager written to Fenix's API, as Fenix's own sample VNF manager is: it sends its
 * token as `X-Auth-Token`, declares its instance group and instances at start (`PUT
 * /v1/instance_group/{id}`, `PUT /v1/instance/{id}`), takes events as AODH event alarms with
 * Fenix's names (`SCALE_IN`, `instance_ids` a list for a host's states), fails on a state it does
 * not know, replies with `instance_action`, and removes its constraints at the end. Against the
 * real exchange, agbot, maintenance service and notifier: the session over h1 and s1 (which
 * would go together, two at once) takes them one after the other with the group's recovery time
 * between, and ends MAINTENANCE_DONE.
 */
import { type NotifierConfig } from '@careen/notifier/src/notifier.config';
import { type InProcessService } from '@careen/service';
import { bearer, eventually, http, useTestInfra } from '@careen/testing';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCareen } from './support/cli-process';
import { ADA, startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';

const RECOVERY_SECONDS = 2;

/** What Fenix's sample does with a trait's text: lists and objects travel as JSON. */
function decodeTrait(value: unknown): unknown {
  return typeof value === 'string' && (value.includes('[') || value.includes('{'))
    ? JSON.parse(value)
    : value;
}

/** The VNF manager of project green, its calls as Fenix's sample makes them. */
class FenixStyleVnfManager {
  readonly states: string[] = [];
  readonly failures: string[] = [];
  private server!: Server;
  private readonly groupId = randomUUID();
  private readonly headers: Record<string, string>;

  constructor(
    private readonly maintenanceUrl: string,
    private readonly exchangeUrl: string,
    token: string,
    private readonly instances: string[],
  ) {
    this.headers = { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Token': token };
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/maintenance`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        this.alarm(JSON.parse(body)).then(
          () => response.writeHead(200).end('OK'),
          (error: Error) => {
            this.failures.push(error.message);
            response.writeHead(500).end(error.message);
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    await this.updateConstraints();
  }

  async stop(): Promise<void> {
    for (const instance of this.instances) await this.call('DELETE', `/instance/${instance}`);
    await this.call('DELETE', `/instance_group/${this.groupId}`);
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Fenix's sample raises on any answer but 200 and 204: so does this one. */
  private async call(method: string, path: string, body?: unknown): Promise<void> {
    const answer = await fetch(`${this.maintenanceUrl}/v1${path}`, {
      method,
      headers: this.headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (answer.status !== 200 && answer.status !== 204) throw new Error(await answer.text());
  }

  private async updateConstraints(): Promise<void> {
    await this.call('PUT', `/instance_group/${this.groupId}`, {
      group_id: this.groupId,
      project_id: 'green',
      group_name: 'green_ha_app_group',
      anti_affinity_group: true,
      max_instances_per_host: 1,
      max_impacted_members: 1,
      recovery_time: RECOVERY_SECONDS,
      resource_mitigation: true,
    });
    for (const instance of this.instances)
      await this.call('PUT', `/instance/${instance}`, {
        instance_id: instance,
        project_id: 'green',
        group_id: this.groupId,
        instance_name: instance,
        max_interruption_time: 120,
        migration_type: 'MIGRATION',
        resource_mitigation: true,
        lead_time: 40,
      });
  }

  private async alarm(data: {
    reason_data: { event: { traits: [string, number, unknown][] } };
  }): Promise<void> {
    const payload = Object.fromEntries(
      data.reason_data.event.traits.map(([name, , value]) => [name, decodeTrait(value)]),
    ) as Record<string, unknown>;
    const state = String(payload.state);
    this.states.push(state);
    const reply: Record<string, unknown> = {};
    let replyState: string | undefined;
    if (state === 'MAINTENANCE') {
      const answer = await fetch(String(payload.instance_ids), { headers: this.headers });
      if (answer.status !== 200) throw new Error(await answer.text());
      reply.instance_ids = ((await answer.json()) as { instance_ids: string[] }).instance_ids;
      replyState = 'ACK_MAINTENANCE';
    } else if (state === 'SCALE_IN') {
      await this.scale(1);
      reply.instance_ids = this.instances.slice(0, 1);
      replyState = 'ACK_SCALE_IN';
    } else if (state === 'MAINTENANCE_COMPLETE') {
      await this.scale(2);
      replyState = 'ACK_MAINTENANCE_COMPLETE';
    } else if (state === 'PREPARE_MAINTENANCE' || state === 'PLANNED_MAINTENANCE') {
      if (!(payload.allowed_actions as string[]).includes('MIGRATE'))
        throw new Error('MIGRATE not supported');
      const instance = (payload.instance_ids as string[])[0];
      if (!this.instances.includes(instance!)) throw new Error(`not our instance: ${instance}`);
      reply.instance_action = 'MIGRATE';
      replyState = `ACK_${state}`;
    } else if (state !== 'INSTANCE_ACTION_DONE') {
      throw new Error(`VNFM received event with unknown state ${state}`);
    }
    if (!replyState) return;
    reply.session_id = payload.session_id;
    reply.state = replyState;
    const answer = await fetch(String(payload.reply_url), {
      method: 'PUT',
      headers: this.headers,
      body: JSON.stringify(reply),
    });
    if (answer.status !== 200) throw new Error(`reply ${replyState}: ${await answer.text()}`);
  }

  /** Scales its deployment as Fenix's sample updates its stack, its template with new parameters. */
  private async scale(replicas: number): Promise<void> {
    const answer = await fetch(`${this.exchangeUrl}/v1/orgs/acme/deployment-policies/green-web`, {
      method: 'PUT',
      headers: this.headers,
      body: JSON.stringify({
        project: 'green',
        service: { org: 'acme', url: 'acme.web', versionRange: '>=1.0.0' },
        constraints: ['role == "web" && zone == "a"'],
        placement: { mode: 'replicas', replicas },
      }),
    });
    if (answer.status !== 200) throw new Error(`scale to ${replicas}: ${await answer.text()}`);
  }
}

describe("a VNF manager written to Fenix's API", () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;
  let notifier: InProcessService<NotifierConfig>;
  /** The VNF manager's key: limited to project green. */
  let key = '';
  /** A key of the whole org, as an admin tool's. */
  let orgKey = '';
  let vnfm: FenixStyleVnfManager;

  beforeAll(async () => {
    hub = await startMaintenanceHub(infra, { green: true, notifier: true });
    notifier = hub.notifier!;
    // Its token: a key of a service account limited to its project, as Fenix's would be a
    // Keystone token scoped to the VNF's project.
    await hub.exchangeCall('POST', '/v1/orgs/acme/service-accounts', { name: 'green-vnfm' }, ADA);
    const keyOf = async (body: object) =>
      (await hub.exchangeCall('POST', '/v1/orgs/acme/service-accounts/green-vnfm/keys', body, ADA)).body
        .key as string;
    key = await keyOf({ scopes: ['maintenance:write', 'policies:write'], projects: ['green'] });
    orgKey = await keyOf({ scopes: ['maintenance:write'] });
  });

  afterAll(() => hub?.close());

  it('declares its constraints, is told SCALE_IN, and sees its group taken one host at a time', async () => {
    const instances = ['h1', 's1'].map((host) => `green-web@${host}`);
    for (const host of ['h1', 's1'])
      expect(hub.fleet.running(host).map((each) => each.deploymentPolicy)).toContain('green-web');
    vnfm = new FenixStyleVnfManager(hub.maintenance!.url, hub.exchange.url, key, instances);
    await vnfm.start();
    const subscribed = await http(notifier.url, 'POST', '/v1/subscriptions', {
      auth: ADA,
      body: {
        scope: 'project',
        project_id: 'green',
        kind: 'webhook',
        format: 'aodh',
        event_names: 'fenix',
        url: vnfm.url,
      },
    });
    expect(subscribed.status).toBe(201);
    expect(subscribed.body.event_names).toBe('fenix');

    const started = await hub.call('POST', '/v1/maintenance', {
      hosts: ['h1', 's1'],
      host_action: { kind: 'simulated', seconds: 0 },
      max_parallel_hosts: 2,
      reply_timeout_seconds: 30,
      reply_timeout_policy: 'fail',
    });
    expect(started.status).toBe(201);
    const id = started.body.session_id as string;
    const session = await eventually(
      async () => {
        const answer = await hub.call('GET', `/v1/maintenance/${id}`);
        expect(answer.body.state).toBe('MAINTENANCE_DONE');
        return answer.body as {
          timeline: {
            at: string;
            kind: string;
            project_id: string | null;
            host: string | null;
            state: string;
            detail: Record<string, unknown>;
          }[];
        };
      },
      { timeoutMs: 60_000 },
    );
    expect(vnfm.failures).toEqual([]);
    expect(vnfm.states).toEqual(
      expect.arrayContaining(['MAINTENANCE', 'SCALE_IN', 'PREPARE_MAINTENANCE', 'MAINTENANCE_COMPLETE']),
    );
    expect(vnfm.states).not.toContain('DOWN_SCALE');
    // From the timeline: the second host of the group is told only after the first is back,
    // and the group's recovery time after that.
    const sent = session.timeline.filter((entry) => entry.kind === 'sent');
    const told = (host: string) =>
      sent.find(
        (entry) =>
          entry.project_id === 'green' &&
          entry.host === host &&
          ['PREPARE_MAINTENANCE', 'PLANNED_MAINTENANCE'].includes(entry.state),
      );
    const back = (host: string) =>
      sent.find(
        (entry) => entry.project_id === null && entry.host === host && entry.state === 'MAINTENANCE_COMPLETE',
      );
    const [first, second] = [told('h1')!, told('s1')!].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
    // Its instances' lead_time (40 s) outlasts the session's reply timeout (30 s): it is given 40.
    for (const entry of [first!, second!])
      expect(Date.parse(entry.detail.deadline as string) - Date.parse(entry.at)).toBeGreaterThanOrEqual(
        40_000,
      );
    const firstBack = back(first!.host!)!;
    expect(Date.parse(second!.at)).toBeGreaterThanOrEqual(Date.parse(firstBack.at) + RECOVERY_SECONDS * 1000);
    const replies = session.timeline.filter(
      (entry) => entry.kind === 'received' && entry.project_id === 'green',
    );
    expect(replies.map((entry) => entry.state)).toEqual(
      expect.arrayContaining(['ACK_SCALE_IN', 'ACK_PREPARE_MAINTENANCE', 'ACK_MAINTENANCE_COMPLETE']),
    );
    // What it declared, as an operator sees it.
    const home = await mkdtemp(join(tmpdir(), 'careen-constraints-'));
    const shown = await runCareen(['maintenance', 'constraints', '--project', 'green'], home, {
      HOME: home,
      CAREEN_API_KEY: key,
      CAREEN_EXCHANGE_URL: hub.exchange.url,
      CAREEN_MAINTENANCE_URL: hub.maintenance!.url,
    });
    await rm(home, { recursive: true, force: true });
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toMatch(/green_ha_app_group +1 +2 +yes +acme\/sa:green-vnfm/);
    expect(shown.stdout).toMatch(/green-web@s1 +green +\S+ +MIGRATION +40 +120/);
    await vnfm.stop();
    const left = await http(hub.maintenance!.url, 'GET', '/v1/instance?project_id=green', { auth: ADA });
    expect(left.body).toEqual({ items: [], total: 0 });
  }, 90_000);

  it("keeps an anti-affinity group's instances on separate hosts, and holds a disruption past its budget", async () => {
    const asVnfm = { 'content-type': 'application/json', 'x-auth-token': key };
    const put = async (url: string, body: unknown) => {
      const answer = await fetch(url, { method: 'PUT', headers: asVnfm, body: JSON.stringify(body) });
      // 200, or 201 for a policy made anew.
      expect([answer.ok, answer.ok ? '' : await answer.text()]).toEqual([true, '']);
    };
    // Left to themselves, these three would all land on h1 (the spreader's hashes of their names).
    const parts = ['green-a', 'green-d', 'green-f'];
    // Declared before the policies exist: the ids name each instance's policy, the host it was
    // meant for does not bind it.
    await put(`${hub.maintenance!.url}/v1/instance_group/green-apart`, {
      project_id: 'green',
      group_name: 'green-apart',
      anti_affinity_group: true,
      max_instances_per_host: 1,
      max_impacted_members: 1,
      recovery_time: 0,
      resource_mitigation: false,
    });
    for (const part of parts)
      await put(`${hub.maintenance!.url}/v1/instance/${part}@h1`, {
        project_id: 'green',
        group_id: 'green-apart',
        instance_name: part,
        max_interruption_time: 0,
        migration_type: 'MIGRATE',
        resource_mitigation: false,
        lead_time: 0,
      });
    // Three single replicas for the three hosts of zone a: the group parts them.
    const holderOf = async () =>
      eventually(
        () => {
          const holders = new Map<string, string>();
          for (const host of ['h1', 's1', 'x1'])
            for (const { deploymentPolicy } of hub.fleet.running(host))
              if (parts.includes(deploymentPolicy)) holders.set(deploymentPolicy, host);
          expect([...holders.keys()].sort()).toEqual(parts);
          expect(new Set(holders.values()).size).toBe(3);
          return holders;
        },
        { timeoutMs: 30_000 },
      );
    for (const part of parts)
      await put(`${hub.exchange.url}/v1/orgs/acme/deployment-policies/${part}`, {
        project: 'green',
        service: { org: 'acme', url: 'acme.web', versionRange: '>=1.0.0' },
        constraints: ['role == "web" && zone == "a"'],
        placement: { mode: 'replicas', replicas: 1 },
      });
    const holders = await holderOf();

    // One instance of the group down: the agbot's gate holds any disruption of another.
    const slot = (host: string, method: 'POST' | 'DELETE') =>
      http(hub.agbot.url, method, `/v1/orgs/acme/nodes/${host}/maintenance-slot`, {
        auth: ADA,
        ...(method === 'POST' ? { body: { leaseSeconds: 60 } } : {}),
      });
    expect((await slot(holders.get('green-a')!, 'POST')).status).toBe(200);
    const held = await slot(holders.get('green-d')!, 'POST');
    expect([held.status, held.body.details?.reason]).toEqual([409, 'budget']);
    expect(held.body.message).toContain('instance group "green-apart" of project green');
    expect((await slot(holders.get('green-a')!, 'DELETE')).status).toBe(204);
    expect((await slot(holders.get('green-d')!, 'POST')).status).toBe(200);
    expect((await slot(holders.get('green-d')!, 'DELETE')).status).toBe(204);

    for (const part of parts) {
      await hub.exchangeCall('DELETE', `/v1/orgs/acme/deployment-policies/${part}`, undefined, ADA);
      await fetch(`${hub.maintenance!.url}/v1/instance/${part}@h1`, { method: 'DELETE', headers: asVnfm });
    }
    await fetch(`${hub.maintenance!.url}/v1/instance_group/green-apart`, {
      method: 'DELETE',
      headers: asVnfm,
    });
  }, 60_000);

  describe('the constraints API', () => {
    const put = (path: string, body: unknown, headers: Record<string, string> = { 'x-auth-token': key }) =>
      fetch(`${hub.maintenance!.url}/v1${path}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }).then(async (answer) => ({
        status: answer.status,
        body: (await answer.json()) as { message: string },
      }));
    const group = (project: string) => ({
      project_id: project,
      group_name: 'g',
      anti_affinity_group: false,
      max_instances_per_host: 0,
      max_impacted_members: 1,
      recovery_time: 0,
      resource_mitigation: false,
    });

    it('refuses a bad body with 400 naming each problem', async () => {
      const { max_impacted_members: _, ...missing } = group('green');
      const answers = await Promise.all([
        put('/instance_group/bad-1', missing),
        put('/instance_group/bad-2', { ...group('green'), recovery_time: 'soon' }),
        put('/instance_group/bad-3', { ...group('green'), colour: 'red' }),
        put('/instance_group/bad-4', { ...group('green'), group_id: 'another' }),
        put('/instance/bad-5', { project_id: 'green', instance_name: 'x' }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400]);
      expect(answers[0]!.body.message).toContain('max_impacted_members');
      expect(answers[1]!.body.message).toContain('recovery_time');
      expect(answers[2]!.body.message).toContain('colour');
      expect(answers[3]!.body.message).toContain('not the path');
      expect(answers[4]!.body.message).toContain('migration_type');
    });

    it("refuses another project's group or instance, and an instance in another project's group", async () => {
      const asOrg = { 'x-auth-token': orgKey };
      expect((await put('/instance_group/shared', group('green'))).status).toBe(200);
      const taken = await put('/instance_group/shared', group('blue'), asOrg);
      expect(taken.status).toBe(409);
      expect(taken.body.message).toContain('declared by project green');
      const instance = {
        project_id: 'blue',
        group_id: 'shared',
        instance_name: 'b',
        max_interruption_time: 0,
        migration_type: 'MIGRATE',
        resource_mitigation: false,
        lead_time: 0,
      };
      const foreignGroup = await put('/instance/blue-web@h2', instance, asOrg);
      expect(foreignGroup.status).toBe(409);
      const unknown = await put('/instance/blue-web@h2', { ...instance, group_id: 'nowhere' }, asOrg);
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toContain('declare it first');
    });

    it('keeps a key limited to a project to that project, and off the routes of the whole org', async () => {
      const other = await put('/instance_group/blue-group', group('blue'));
      expect(other.status).toBe(403);
      expect(other.body.message).toContain('limited to project(s) green, not blue');
      const auth = { authorization: `Bearer ${key}` };
      const session = await fetch(`${hub.maintenance!.url}/v1/maintenance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ hosts: ['h2'] }),
      });
      expect(session.status).toBe(403);
      expect(((await session.json()) as { message: string }).message).toContain('acts beyond one project');
      // It lists its own project's groups only, and the maintenance service learns its limits
      // from the exchange.
      expect((await put('/instance_group/shared-2', group('blue'), { 'x-auth-token': orgKey })).status).toBe(
        200,
      );
      const listed = await http(hub.maintenance!.url, 'GET', '/v1/instance_group', { auth: bearer(key) });
      expect(listed.body.items.map((each: { project_id: string }) => each.project_id)).not.toContain('blue');
      const who = await http(hub.maintenance!.url, 'GET', '/v1/whoami', { auth: bearer(key) });
      expect(who.body).toMatchObject({ kind: 'service', projects: ['green'] });
    });

    it('refuses a missing, unknown or doubled credential, and a key without the scope', async () => {
      const readOnly = await hub.exchangeCall(
        'POST',
        '/v1/orgs/acme/service-accounts/green-vnfm/keys',
        { scopes: ['maintenance:read'] },
        ADA,
      );
      const answers = await Promise.all([
        put('/instance_group/creds', group('green'), {}),
        put('/instance_group/creds', group('green'), {
          'x-auth-token': 'ck_nope_0000000000000000000000000000',
        }),
        put('/instance_group/creds', group('green'), {
          'x-auth-token': key,
          authorization: `Bearer ${key}`,
        }),
        put('/instance_group/creds', group('green'), { 'x-auth-token': readOnly.body.key }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 403]);
      expect(answers[2]!.body.message).toContain('not both');
      expect(answers[3]!.body.message).toContain('maintenance:write');
    });
  });
});
