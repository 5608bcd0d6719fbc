/**
 * FleetLock conformance, from the protocol's description: POST /v1/pre-reboot and
 * /v1/steady-state with header `fleet-lock-protocol: true` and body
 * `{client_params: {id, group}}`; 200 on success; errors as `{kind, value}` with a 4xx/5xx.
 * Here groups are HA groups of the FleetLock org and the semaphore is the agent-upgrade one.
 */
import { http, useTestInfra, type Credentials, type RequestOptions } from '@careen/testing';
import { findViolations } from '../upgrades/upgrade-timeline';
import { UpgradeHub } from '../upgrades/upgrades.fixtures';

const HEADER = { 'fleet-lock-protocol': 'true' };

describe('FleetLock', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  /** Loopback is trusted (the default), two slots per group. */
  let open: string;
  /** One slot per group, and only 10.0.0.0/8 trusted: the test's loopback calls need credentials. */
  let guarded: string;

  const fleetLock = (base: string, operation: 'pre-reboot' | 'steady-state', options: RequestOptions) =>
    http(base, 'POST', `/v1/${operation}`, { ...options, headers: { ...HEADER, ...options.headers } });
  const lock = (id: string, group: string, base = open, auth?: Credentials) =>
    fleetLock(base, 'pre-reboot', { body: { client_params: { id, group } }, auth });
  const unlock = (id: string, group: string, base = open, auth?: Credentials) =>
    fleetLock(base, 'steady-state', { body: { client_params: { id, group } }, auth });

  beforeAll(async () => {
    hub = await UpgradeHub.start(infra);
    open = (await hub.startAgbot({ CAREEN_FLEETLOCK_ORG: 'fleet', CAREEN_FLEETLOCK_SLOTS: '2' })).url;
    guarded = (
      await hub.startAgbot({
        CAREEN_FLEETLOCK_ORG: 'fleet',
        CAREEN_FLEETLOCK_SLOTS: '1',
        CAREEN_FLEETLOCK_TRUSTED_NETWORKS: '10.0.0.0/8, fd00::/8',
      })
    ).url;
    await hub.seedNodes('fleet', {
      w1: 'workers',
      w2: 'workers',
      w3: 'workers',
      d1: 'db',
      d2: 'db',
      lone: null,
    });
    await hub.seedNodes('acme', { stranger: 'workers' });
  });

  afterAll(() => hub.close());

  afterEach(async () => {
    expect(findViolations(await hub.timeline(), 2)).toEqual([]);
  });

  describe('refuses malformed requests with {kind, value}', () => {
    it('without the fleet-lock-protocol header', async () => {
      for (const headers of [{}, { 'fleet-lock-protocol': 'false' }] as Record<string, string>[]) {
        const answer = await http(open, 'POST', '/v1/pre-reboot', {
          body: { client_params: { id: 'w1', group: 'workers' } },
          headers,
        });
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({
          kind: 'missing_fleetlock_header',
          value: expect.stringContaining('header'),
        });
      }
      const steady = await http(open, 'POST', '/v1/steady-state', {
        body: { client_params: { id: 'w1', group: 'workers' } },
      });
      expect(steady.body.kind).toBe('missing_fleetlock_header');
    });

    it.each([
      ['no client_params', { id: 'w1', group: 'workers' }],
      ['client_params not an object', { client_params: 'w1' }],
      ['an empty id', { client_params: { id: '', group: 'workers' } }],
      ['a numeric id', { client_params: { id: 7, group: 'workers' } }],
      ['no group', { client_params: { id: 'w1' } }],
      ['a group outside the protocol alphabet', { client_params: { id: 'w1', group: 'work ers' } }],
      ['an id that cannot name a node', { client_params: { id: 'w1/../x', group: 'workers' } }],
    ])('with %s', async (_what, body) => {
      for (const operation of ['pre-reboot', 'steady-state'] as const) {
        const answer = await fleetLock(open, operation, { body });
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ kind: 'invalid_client_params', value: expect.any(String) });
      }
    });

    it.each([
      ['malformed JSON', '{"client_params": {"id": "w1",', 'text/plain'],
      ['malformed JSON sent as application/json', '{"client_params": {"id": "w1",', 'application/json'],
      ['a JSON array', '[]', 'text/plain'],
      ['JSON null', 'null', 'text/plain'],
      ['JSON null sent as application/json', 'null', 'application/json'],
      ['an empty body', '', 'text/plain'],
    ])('with %s', async (_what, rawBody, contentType) => {
      for (const operation of ['pre-reboot', 'steady-state'] as const) {
        const answer = await fleetLock(open, operation, {
          rawBody,
          headers: { 'content-type': contentType },
        });
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ kind: 'invalid_client_params', value: expect.any(String) });
      }
    });

    it('naming a node the org does not have, or naming the wrong group', async () => {
      const unknown = await lock('ghost', 'workers');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ kind: 'unknown_client', value: expect.stringContaining('ghost') });
      expect((await lock('stranger', 'workers')).body.kind).toBe('unknown_client');
      const wrongGroup = await lock('w1', 'db');
      expect(wrongGroup.status).toBe(400);
      expect(wrongGroup.body).toEqual({
        kind: 'group_mismatch',
        value: expect.stringContaining('"workers"'),
      });
      expect((await lock('lone', 'workers')).body.kind).toBe('group_mismatch');
    });
  });

  describe('pre-reboot and steady-state', () => {
    it('locks recursively, fills the slots, refuses with failed_lock_semaphore_full, releases idempotently', async () => {
      expect((await lock('w1', 'workers')).status).toBe(200);
      expect((await lock('w1', 'workers')).status).toBe(200);
      expect((await lock('w2', 'workers')).status).toBe(200);
      const full = await lock('w3', 'workers');
      expect(full.status).toBe(409);
      expect(full.body).toEqual({
        kind: 'failed_lock_semaphore_full',
        value: expect.stringContaining('2 slot'),
      });

      expect((await unlock('w1', 'workers')).status).toBe(200);
      expect((await unlock('w1', 'workers')).status).toBe(200);
      expect((await unlock('w3', 'workers')).status).toBe(200);
      expect((await lock('w3', 'workers')).status).toBe(200);
      expect((await unlock('w2', 'workers')).status).toBe(200);
      expect((await unlock('w3', 'workers')).status).toBe(200);
    });

    it('lists a refused client as waiting for its group until it takes a slot, to the org only', async () => {
      const viewer = await hub.userToken('fleet', 'vera', 'viewer');
      const waiting = async () =>
        (await http(open, 'GET', '/v1/orgs/fleet/fleetlock-waiters', { auth: viewer })).body;
      expect((await lock('w1', 'workers')).status).toBe(200);
      expect((await lock('w2', 'workers')).status).toBe(200);
      expect((await lock('w3', 'workers')).status).toBe(409);
      const first = await waiting();
      expect(first).toEqual({
        items: [
          { node: 'w3', haGroup: 'workers', since: expect.any(String), lastRefusedAt: expect.any(String) },
        ],
        total: 1,
      });
      // Asking again keeps the wait's start.
      expect((await lock('w3', 'workers')).status).toBe(409);
      expect((await waiting()).items[0].since).toBe(first.items[0].since);
      const stranger = await hub.userToken('acme', 'sam', 'operator');
      expect((await http(open, 'GET', '/v1/orgs/fleet/fleetlock-waiters', { auth: stranger })).status).toBe(
        403,
      );

      expect((await unlock('w1', 'workers')).status).toBe(200);
      expect((await lock('w3', 'workers')).status).toBe(200);
      expect(await waiting()).toEqual({ items: [], total: 0 });
      expect((await unlock('w2', 'workers')).status).toBe(200);
      expect((await unlock('w3', 'workers')).status).toBe(200);
    });

    it('accepts a body sent without a JSON content type, as `curl -d` sends it', async () => {
      const answer = await fleetLock(open, 'pre-reboot', {
        rawBody: JSON.stringify({ client_params: { id: 'd1', group: 'db' } }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(answer.status).toBe(200);
      expect((await unlock('d1', 'db')).status).toBe(200);
    });

    it('ignores fields the protocol may add later', async () => {
      const answer = await fleetLock(open, 'pre-reboot', {
        body: { client_params: { id: 'd1', group: 'db', zone: 'z1' }, version: 2 },
      });
      expect(answer.status).toBe(200);
      expect((await unlock('d1', 'db')).status).toBe(200);
    });

    it('lets a node outside any HA group reboot under the default group', async () => {
      expect((await lock('lone', 'default')).status).toBe(200);
      expect((await unlock('lone', 'default')).status).toBe(200);
    });

    it('applies the slots of the replica that answers: one where one is configured', async () => {
      const node = await hub.nodeToken('fleet', 'd1');
      expect((await lock('d1', 'db', guarded, node)).status).toBe(200);
      const full = await lock('d2', 'db', guarded, await hub.nodeToken('fleet', 'd2'));
      expect(full.status).toBe(409);
      expect(full.body.kind).toBe('failed_lock_semaphore_full');
      expect((await unlock('d1', 'db', guarded, node)).status).toBe(200);
    });
  });

  describe('shares the semaphore with agent upgrades', () => {
    const upgrade = async (node: string) =>
      http(open, 'POST', `/v1/orgs/fleet/nodes/${node}/upgrade`, {
        auth: await hub.nodeToken('fleet', node),
        body: { managementPolicy: 'agents-2' },
      });

    it('refuses a reboot while a member upgrades its agent, and an agent upgrade while a member reboots', async () => {
      expect((await upgrade('w1')).status).toBe(200);
      const during = await lock('w2', 'workers');
      expect(during.status).toBe(409);
      expect(during.body).toEqual({
        kind: 'failed_lock_semaphore_full',
        value: expect.stringContaining('w1'),
      });
      await http(open, 'DELETE', '/v1/orgs/fleet/nodes/w1/upgrade', {
        auth: await hub.nodeToken('fleet', 'w1'),
      });

      expect((await lock('w2', 'workers')).status).toBe(200);
      const blocked = await upgrade('w3');
      expect(blocked.status).toBe(409);
      expect(blocked.body.details.holder).toMatchObject({ node: 'w2', managementPolicy: null });
      expect((await unlock('w2', 'workers')).status).toBe(200);
      expect((await upgrade('w3')).status).toBe(200);
      await http(open, 'DELETE', '/v1/orgs/fleet/nodes/w3/upgrade', {
        auth: await hub.nodeToken('fleet', 'w3'),
      });
    });
  });

  describe('who may call', () => {
    it('refuses a caller outside the trusted networks that sends no credentials', async () => {
      const answer = await lock('w1', 'workers', guarded);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ kind: 'unauthenticated', value: expect.stringContaining('trusted') });
      expect((await unlock('w1', 'workers', guarded)).status).toBe(401);
    });

    it("accepts the node's own credentials and refuses another node's", async () => {
      expect((await lock('w1', 'workers', guarded, await hub.nodeToken('fleet', 'w2'))).body).toEqual({
        kind: 'forbidden',
        value: expect.any(String),
      });
      expect((await lock('w1', 'workers', guarded, await hub.nodeToken('acme', 'w1'))).status).toBe(403);
      const own = await hub.nodeToken('fleet', 'w1');
      expect((await lock('w1', 'workers', guarded, own)).status).toBe(200);
      expect((await unlock('w1', 'workers', guarded, own)).status).toBe(200);
    });

    it('refuses bad credentials even from a trusted network', async () => {
      const answer = await lock('w1', 'workers', open, { bearer: 'not-a-token' });
      expect(answer.status).toBe(401);
      expect(answer.body.kind).toBe('unauthenticated');
    });

    it("accepts an org admin's or an operator's credentials for any node of the org, not a viewer's", async () => {
      const admin = await hub.token({ kind: 'user', org: 'fleet', username: 'ops', role: 'orgAdmin' });
      expect((await lock('w1', 'workers', guarded, admin)).status).toBe(200);
      expect((await unlock('w1', 'workers', guarded, admin)).status).toBe(200);
      const operator = await hub.userToken('fleet', 'oli', 'operator');
      expect((await lock('w1', 'workers', guarded, operator)).status).toBe(200);
      expect((await unlock('w1', 'workers', guarded, operator)).status).toBe(200);
      const viewer = await hub.userToken('fleet', 'vera', 'viewer');
      const refused = await lock('w1', 'workers', guarded, viewer);
      expect(refused.status).toBe(403);
      expect(refused.body.value).toContain(
        'role viewer may not call this route; it needs operator or higher',
      );
    });
  });

  it('answers 503 not_configured on a replica without a FleetLock org', async () => {
    const bare = await hub.startAgbot();
    const answer = await lock('w1', 'workers', bare.url);
    expect(answer.status).toBe(503);
    expect(answer.body.kind).toBe('not_configured');
  });
});
