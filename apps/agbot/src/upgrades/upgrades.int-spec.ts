/**
 * Agent-upgrade grants over HTTP: the contract agents are built against (200 grant, 409 with
 * the holder, idempotent renew and release), who may ask, bad input, and the monitor releasing
 * holders from exchange changes, each grant and release published on CAREEN_AGBOT.
 */
import { STREAMS, type ChangePayload, type ManagementStatusValue } from '@careen/contracts';
import { BUS } from '@careen/service';
import {
  eventually,
  http,
  itRefusesBadBodies,
  readStream,
  useTestInfra,
  whileRowsLocked,
  type Credentials,
} from '@careen/testing';
import { type BusConnection } from '@careen/bus';
import { DataSource } from 'typeorm';
import { GrantStore } from './grant-store';
import { UpgradeMonitor } from './upgrade-monitor';
import { findViolations, readTimeline } from './upgrade-timeline';
import { nodeChangeData, statusChangeData, UpgradeHub } from './upgrades.fixtures';

describe('agent-upgrade grants', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  let admin: Credentials;
  let viewer: Credentials;
  const badBody = {
    method: 'POST',
    path: '/v1/orgs/acme/nodes/solo/upgrade',
    auth: undefined as Credentials,
    valid: { managementPolicy: 'agents-2' },
    wrongTypes: { managementPolicy: 42 },
    required: ['managementPolicy'],
  };

  const agbotUrl = (index = 0) => hub.agbots[index]!.url;
  const upgrade = async (node: string, managementPolicy = 'agents-2', auth?: Credentials, index = 0) =>
    http(agbotUrl(index), 'POST', `/v1/orgs/acme/nodes/${node}/upgrade`, {
      auth: auth ?? (await hub.nodeToken('acme', node)),
      body: { managementPolicy },
    });
  const release = async (node: string, auth?: Credentials) =>
    http(agbotUrl(), 'DELETE', `/v1/orgs/acme/nodes/${node}/upgrade`, {
      auth: auth ?? (await hub.nodeToken('acme', node)),
    });

  /** Passes the change to the monitor in a transaction; answers how many statements it sent. */
  async function monitorSees(
    change: Omit<ChangePayload, 'changedAt'>,
    changedAt = new Date(),
  ): Promise<number> {
    const agbot = hub.agbots[0]!;
    const monitor = agbot.app.get(UpgradeMonitor);
    let statements = 0;
    await agbot.app.get(DataSource).transaction((manager) => {
      const query = manager.query.bind(manager);
      manager.query = (...args: Parameters<typeof query>) => {
        statements++;
        return query(...args);
      };
      return monitor.onChange({ ...change, changedAt: changedAt.toISOString() }, manager);
    });
    monitor.afterCommit();
    return statements;
  }
  const statusChange = (
    node: string,
    nmp: string,
    status: ManagementStatusValue,
    changedAt?: Date,
    error?: string,
  ) =>
    monitorSees(
      {
        org: 'acme',
        resource: 'managementStatus',
        resourceId: node,
        operation: 'updated',
        data: statusChangeData('acme', node, nmp, status, error),
      },
      changedAt,
    );
  const groupState = async (haGroup: string) =>
    (
      (await http(agbotUrl(), 'GET', '/v1/orgs/acme/upgrade-groups', { auth: viewer })).body.items as {
        haGroup: string;
        halted: unknown;
      }[]
    ).find((group) => group.haGroup === haGroup);
  const heartbeat = (node: string, lastHeartbeat: Date) =>
    monitorSees({
      org: 'acme',
      resource: 'node',
      resourceId: node,
      operation: 'updated',
      data: nodeChangeData('acme', node, 'status', {
        status: { lastHeartbeat: lastHeartbeat.toISOString() },
      }),
    });
  const leaseOf = async (node: string): Promise<number> => {
    const items: { node: string; leaseExpiresAt: string }[] = (
      await http(agbotUrl(), 'GET', '/v1/orgs/acme/upgrades', { auth: admin })
    ).body.items;
    return Date.parse(items.find((item) => item.node === node)!.leaseExpiresAt);
  };

  beforeAll(async () => {
    hub = await UpgradeHub.start(infra);
    await hub.startAgbot();
    await hub.startAgbot();
    admin = await hub.userToken('acme', 'ada', 'orgAdmin');
    viewer = await hub.userToken('acme', 'ulf', 'viewer');
    badBody.auth = admin;
    await hub.seedNodes('acme', {
      solo: null,
      a1: 'alpha',
      a2: 'alpha',
      a3: 'alpha',
      b1: 'beta',
      b2: 'beta',
      ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`r${i}`, 'race'])),
      s1: 'status',
      s2: 'status',
      s3: 'status',
      s4: 'status',
      m1: 'moving',
      m2: 'moving',
      d1: 'doomed',
      d2: 'doomed',
      w1: 'waiting',
      w2: 'waiting',
      w3: 'waiting',
      k1: 'stuck',
      k2: 'stuck',
      mt1: 'maintained',
      mt2: 'maintained',
      mt3: 'maintained',
      rn1: 'renewing',
      rn2: 'renewing',
      h1: 'halting',
      h2: 'halting',
      h3: 'halting',
      p1: 'stopping',
      p2: 'stopping',
      x1: 'resetting',
      x2: 'resetting',
      x3: 'resetting',
      y1: 'elsewhere',
    });
    await hub.seedNodes('other', { foreign: 'alpha' });
    await hub.seedManagementPolicy('acme', 'nmp-h', { enabled: true });
  });

  afterAll(() => hub.close());

  afterEach(async () => {
    expect(findViolations(await hub.timeline(), 1)).toEqual([]);
  });

  it('grants a free group and answers the grant', async () => {
    const granted = await upgrade('a1');
    expect(granted.status).toBe(200);
    expect(granted.body).toEqual({
      org: 'acme',
      node: 'a1',
      haGroup: 'alpha',
      holder: 'agent-upgrade',
      managementPolicy: 'agents-2',
      grantedAt: expect.any(String),
      leaseExpiresAt: expect.any(String),
    });
    const leaseMs = Date.parse(granted.body.leaseExpiresAt) - Date.parse(granted.body.grantedAt);
    expect(leaseMs).toBe(120_000);
  });

  it('refuses a peer with 409 naming the holder, on any replica', async () => {
    for (const index of [0, 1]) {
      const refused = await upgrade('a2', 'agents-2', undefined, index);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        statusCode: 409,
        error: 'Conflict',
        message: expect.stringContaining('a1'),
        details: {
          code: 'UPGRADE_GROUP_BUSY',
          haGroup: 'alpha',
          holder: {
            node: 'a1',
            kind: 'agent-upgrade',
            managementPolicy: 'agents-2',
            grantedAt: expect.any(String),
            leaseExpiresAt: expect.any(String),
            halted: false,
            error: null,
          },
        },
      });
    }
  });

  it('renews the lease when the holder asks again, without a second grant', async () => {
    const first = (await http(agbotUrl(), 'GET', '/v1/orgs/acme/upgrades', { auth: admin })).body.items.find(
      (item: { node: string }) => item.node === 'a1',
    );
    const again = await upgrade('a1', 'agents-2', undefined, 1);
    expect(again.status).toBe(200);
    expect(again.body.grantedAt).toBe(first.grantedAt);
    expect(Date.parse(again.body.leaseExpiresAt)).toBeGreaterThan(Date.parse(first.leaseExpiresAt));
    expect((await hub.history('acme', 'a1')).filter((event) => event.event === 'granted')).toHaveLength(1);
  });

  it('lists the holders of the org for its users', async () => {
    const listed = await http(agbotUrl(), 'GET', '/v1/orgs/acme/upgrades', { auth: viewer });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(listed.body.items.length);
    expect(listed.body.items).toContainEqual({
      node: 'a1',
      haGroup: 'alpha',
      managementPolicy: 'agents-2',
      grantedAt: expect.any(String),
      leaseExpiresAt: expect.any(String),
      ageSeconds: expect.any(Number),
      kind: 'agent-upgrade',
      halted: false,
      haltedAt: null,
      error: null,
    });
    const foreign = await http(agbotUrl(), 'GET', '/v1/orgs/other/upgrades', { auth: viewer });
    expect(foreign.status).toBe(403);
  });

  it('releases on DELETE with 204, idempotently, and then grants the peer', async () => {
    expect((await release('a1')).status).toBe(204);
    expect((await release('a1')).status).toBe(204);
    expect((await release('a3')).status).toBe(204);
    expect((await upgrade('a2')).status).toBe(200);
    expect(await hub.history('acme', 'a1')).toEqual([
      { event: 'granted', reason: null },
      { event: 'released', reason: 'released' },
    ]);
    expect((await release('a2', admin)).status).toBe(204);
  });

  it('always grants a node outside any HA group', async () => {
    const granted = await upgrade('solo', 'agents-3');
    expect(granted.status).toBe(200);
    expect(granted.body.haGroup).toBeNull();
    expect((await release('solo')).status).toBe(204);
  });

  it('gives exactly one of many concurrent requests for one group a 200', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => upgrade(`r${i}`, 'agents-2', undefined, i % 2)),
    );
    const granted = answers.filter((answer) => answer.status === 200);
    expect(granted).toHaveLength(1);
    const winner = granted[0]!.body.node;
    const refused = answers.filter((answer) => answer.status === 409);
    expect(refused).toHaveLength(19);
    for (const answer of refused) expect(answer.body.details.holder.node).toBe(winner);
  });

  it('lets an org admin act for any node of the org', async () => {
    expect((await upgrade('b1', 'agents-2', admin)).status).toBe(200);
    expect((await release('b1', admin)).status).toBe(204);
  });

  describe('refuses', () => {
    it('a node the agbot does not know, with 404 naming it', async () => {
      const answer = await upgrade('ghost', 'agents-2', admin);
      expect(answer.status).toBe(404);
      expect(answer.body.message).toContain('acme/ghost');
    });

    it("a node's token used for another node, with 403", async () => {
      const answer = await upgrade('b2', 'agents-2', await hub.nodeToken('acme', 'b1'));
      expect(answer.status).toBe(403);
      expect((await release('b2', await hub.nodeToken('acme', 'b1'))).status).toBe(403);
    });

    it('a node of another org, with 403', async () => {
      const answer = await upgrade('a2', 'agents-2', await hub.nodeToken('other', 'foreign'));
      expect(answer.status).toBe(403);
      const own = await http(agbotUrl(), 'POST', '/v1/orgs/other/nodes/foreign/upgrade', {
        auth: admin,
        body: { managementPolicy: 'agents-2' },
      });
      expect(own.status).toBe(403);
    });

    it('a viewer, with 403, and no credentials, with 401', async () => {
      expect((await upgrade('b2', 'agents-2', viewer)).status).toBe(403);
      const anonymous = await http(agbotUrl(), 'POST', '/v1/orgs/acme/nodes/b2/upgrade', {
        body: { managementPolicy: 'agents-2' },
      });
      expect(anonymous.status).toBe(401);
    });

    it('a management policy or node that is not an identifier, with 400', async () => {
      expect((await upgrade('b2', 'no/such policy', admin)).status).toBe(400);
      const badNode = await http(agbotUrl(), 'POST', '/v1/orgs/acme/nodes/bad.node/upgrade', {
        auth: admin,
        body: { managementPolicy: 'agents-2' },
      });
      expect(badNode.status).toBe(400);
    });
  });

  describe('renewing only (renew: true)', () => {
    const renew = async (node: string, body: Record<string, unknown> = {}) =>
      http(agbotUrl(1), 'POST', `/v1/orgs/acme/nodes/${node}/upgrade`, {
        auth: await hub.nodeToken('acme', node),
        body: { managementPolicy: 'agents-2', renew: true, ...body },
      });

    it('extends the lease of the grant the node holds, on any replica', async () => {
      const granted = await upgrade('rn1');
      const renewed = await renew('rn1');
      expect(renewed.status).toBe(200);
      expect(renewed.body.grantedAt).toBe(granted.body.grantedAt);
      expect(Date.parse(renewed.body.leaseExpiresAt)).toBeGreaterThan(
        Date.parse(granted.body.leaseExpiresAt),
      );
    });

    it('never grants: a renewal that comes after the release leaves the group free', async () => {
      expect((await release('rn1')).status).toBe(204);
      const late = await renew('rn1');
      expect(late.status).toBe(404);
      expect(late.body.details).toMatchObject({ code: 'UPGRADE_NOT_HELD', node: 'rn1' });
      expect(await hub.history('acme', 'rn1')).toEqual([
        { event: 'granted', reason: null },
        { event: 'released', reason: 'released' },
      ]);
      expect((await upgrade('rn2')).status).toBe(200);
    });

    it('does not renew a grant held for another policy', async () => {
      expect((await renew('rn2', { managementPolicy: 'agents-3' })).status).toBe(404);
      expect((await release('rn2')).status).toBe(204);
    });

    it('refuses a renew flag that is not a boolean, with 400 naming it', async () => {
      const refused = await renew('rn2', { renew: 'yes' });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('renew');
    });
  });

  describe('waiting for the slot (?wait=)', () => {
    const waitingFor = async (node: string, wait: number | string, index = 0, signal?: AbortSignal) =>
      fetch(`${agbotUrl(index)}/v1/orgs/acme/nodes/${node}/upgrade?wait=${wait}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${(await hub.nodeToken('acme', node)).bearer}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ managementPolicy: 'agents-2' }),
        signal,
      });
    const waitingNow = async (index: number) => {
      const metrics: string = (await http(agbotUrl(index), 'GET', '/metrics')).body;
      return Number(/^careen_agbot_upgrade_waiting_requests\{[^}]*\} (\d+)$/m.exec(metrics)?.[1]);
    };

    it('answers a waiting peer as soon as the holder releases, on another replica', async () => {
      expect((await upgrade('w1')).status).toBe(200);
      // Without the wake it would be refused: the holder's lease outlasts the wait.
      const answer = waitingFor('w2', 60, 1);
      await eventually(async () => expect(await waitingNow(1)).toBe(1));
      expect((await release('w1')).status).toBe(204);
      const granted = await answer;
      expect(granted.status).toBe(200);
      expect(await granted.json()).toMatchObject({ node: 'w2', haGroup: 'waiting' });
      expect(await waitingNow(1)).toBe(0);
    });

    it('refuses with 409 naming the holder when the wait ends first', async () => {
      const asked = Date.now();
      const refused = await waitingFor('w3', 1);
      expect(refused.status).toBe(409);
      expect(Date.now() - asked).toBeGreaterThanOrEqual(1_000);
      expect(await refused.json()).toMatchObject({ details: { holder: { node: 'w2' } } });
    });

    it('stops waiting when the caller hangs up, and is not granted a slot it would never use', async () => {
      const hangUp = new AbortController();
      const answer = waitingFor('w3', 60, 0, hangUp.signal).catch((error: Error) => error.name);
      await eventually(async () => expect(await waitingNow(0)).toBe(1));
      hangUp.abort();
      expect(await answer).toBe('AbortError');
      await eventually(async () => expect(await waitingNow(0)).toBe(0));
      expect((await release('w2')).status).toBe(204);
      const holders = (await http(agbotUrl(), 'GET', '/v1/orgs/acme/upgrades', { auth: admin })).body.items;
      expect(holders.filter((item: { haGroup: string }) => item.haGroup === 'waiting')).toEqual([]);
      expect(await hub.history('acme', 'w3')).toEqual([]);
    });

    it("asks again when the holder's lease runs out, with no release to wake it", async () => {
      const shortLeases = await hub.startAgbot({ CAREEN_UPGRADE_LEASE_SECONDS: '1' });
      const held = await http(shortLeases.url, 'POST', '/v1/orgs/acme/nodes/w1/upgrade', {
        auth: await hub.nodeToken('acme', 'w1'),
        body: { managementPolicy: 'agents-2' },
      });
      expect(held.status).toBe(200);
      const granted = await waitingFor('w3', 30);
      expect(granted.status).toBe(200);
      expect(await hub.history('acme', 'w1')).toContainEqual({ event: 'released', reason: 'lease-expired' });
      expect((await release('w3')).status).toBe(204);
    });

    it('waits for a halted group without asking again until something is released', async () => {
      const refusals = async () =>
        Number(
          /^careen_agbot_upgrade_refusals_total\{holder="agent-upgrade",service="agbot"\} (\d+)$/m.exec(
            (await http(agbotUrl(), 'GET', '/metrics')).body as string,
          )?.[1] ?? 0,
        );
      // Taken for a member that held no slot: its lease is long over. A group of its own, so
      // that no release of another test's group can wake the wait.
      await statusChange('k1', 'agents-2', 'rollback-failed', undefined, 'stuck');
      const before = await refusals();
      const refused = await waitingFor('k2', 2);
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ details: { holder: { node: 'k1', halted: true } } });
      // Asked once: neither the halted slot's lease end nor the deadline is a reason to ask again.
      expect((await refusals()) - before).toBe(1);
      await statusChange('k1', 'agents-2', 'reset');
    });

    it.each([['-1'], ['61'], ['soon'], ['1.5']])('refuses wait=%s with 400 naming it', async (wait) => {
      const refused = await waitingFor('w1', wait);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(await refused.json())).toContain('wait');
    });
  });

  describe('maintenance slots', () => {
    const slotPath = (node: string) => `/v1/orgs/acme/nodes/${node}/maintenance-slot`;
    const maintain = (node: string, body: object = {}, auth: Credentials = admin, query = '') =>
      http(agbotUrl(), 'POST', `${slotPath(node)}${query}`, { auth, body });
    const endMaintenance = (node: string, auth: Credentials = admin) =>
      http(agbotUrl(), 'DELETE', slotPath(node), { auth });

    it('keeps every other holder out of the group while a member is in maintenance, and gives way after', async () => {
      const taken = await maintain('mt1', { leaseSeconds: 600 });
      expect(taken.status).toBe(200);
      expect(taken.body).toMatchObject({ node: 'mt1', haGroup: 'maintained', holder: 'maintenance' });
      expect(Date.parse(taken.body.leaseExpiresAt) - Date.parse(taken.body.grantedAt)).toBe(600_000);
      const refused = await upgrade('mt2');
      expect(refused.status).toBe(409);
      expect(refused.body.details).toMatchObject({
        code: 'UPGRADE_GROUP_BUSY',
        holder: { node: 'mt1', kind: 'maintenance' },
      });
      expect((await maintain('mt3')).status).toBe(409);
      // Asking again renews: the grant stays the same one.
      const renewed = await maintain('mt1');
      expect(renewed.body.grantedAt).toBe(taken.body.grantedAt);
      expect((await endMaintenance('mt1')).status).toBe(204);
      expect((await upgrade('mt2')).status).toBe(200);
      expect((await maintain('mt1')).status).toBe(409);
      expect((await release('mt2')).status).toBe(204);
    });

    it('waits for the slot with ?wait= and is answered when the holder gives it back', async () => {
      expect((await upgrade('mt2')).status).toBe(200);
      const waiting = maintain('mt1', {}, admin, '?wait=30');
      await eventually(async () => {
        const metrics: string = (await http(agbotUrl(), 'GET', '/metrics')).body;
        expect(metrics).toMatch(/^careen_agbot_upgrade_waiting_requests\{[^}]*\} [1-9]/m);
      });
      expect((await release('mt2')).status).toBe(204);
      expect((await waiting).status).toBe(200);
      expect((await endMaintenance('mt1')).status).toBe(204);
      expect((await endMaintenance('mt1')).status).toBe(204);
    });

    it('is for operators and admins: a node or a viewer is refused, another org too', async () => {
      expect((await maintain('mt3', {}, await hub.nodeToken('acme', 'mt3'))).status).toBe(403);
      expect((await maintain('mt3', {}, viewer)).status).toBe(403);
      expect(
        (
          await http(agbotUrl(), 'POST', '/v1/orgs/other/nodes/foreign/maintenance-slot', {
            auth: admin,
            body: {},
          })
        ).status,
      ).toBe(403);
      expect((await maintain('ghost')).status).toBe(404);
    });

    it.each([
      [{ leaseSeconds: 5 }],
      [{ leaseSeconds: 'long' }],
      [{ leaseSeconds: null }],
      [{ session: 's-1' }],
    ])('refuses %j with 400 naming the field', async (body) => {
      const refused = await maintain('mt3', body);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(Object.keys(body)[0]!);
    });

    it('leaves a timeline with no two members of a group down at once', async () => {
      const history = await readTimeline(hub.dataSource.manager);
      expect(history.some((event) => event.kind === 'maintenance')).toBe(true);
      expect(findViolations(history, 1)).toEqual([]);
    });
  });

  describe('bad bodies', () => {
    itRefusesBadBodies([badBody], () => agbotUrl());
  });

  describe('the monitor', () => {
    it.each<[ManagementStatusValue]>([['successful'], ['rolled-back']])(
      'releases a holder whose status for its policy turns %s',
      async (status) => {
        expect((await upgrade('s1', 'nmp-s')).status).toBe(200);
        expect((await upgrade('s2', 'nmp-s')).status).toBe(409);
        await statusChange('s1', 'nmp-s', status);
        expect((await upgrade('s2', 'nmp-s')).status).toBe(200);
        expect((await hub.history('acme', 's1')).at(-1)).toEqual({
          event: 'released',
          reason: 'terminal-status',
        });
        expect((await release('s2')).status).toBe(204);
      },
    );

    it('renews on a status in progress and ignores statuses of other policies', async () => {
      const granted = await upgrade('s3', 'nmp-s');
      // The renewal alone: no read of the slot first.
      expect(await statusChange('s3', 'nmp-s', 'initiated')).toBe(1);
      await statusChange('s3', 'other-policy', 'successful');
      const [held] = (
        await http(agbotUrl(), 'GET', '/v1/orgs/acme/upgrades', { auth: admin })
      ).body.items.filter((item: { node: string }) => item.node === 's3');
      expect(Date.parse(held.leaseExpiresAt)).toBeGreaterThan(Date.parse(granted.body.leaseExpiresAt));
      expect((await upgrade('s4', 'nmp-s')).status).toBe(409);
      expect((await release('s3')).status).toBe(204);
    });

    it('keeps a holder when a terminal status set before its grant arrives late (a replayed change)', async () => {
      expect((await upgrade('s1', 'nmp-s')).status).toBe(200);
      await statusChange('s1', 'nmp-s', 'successful', new Date(Date.now() - 60_000));
      expect((await upgrade('s2', 'nmp-s')).status).toBe(409);
      await statusChange('s1', 'nmp-s', 'successful');
      expect((await upgrade('s2', 'nmp-s')).status).toBe(200);
      expect((await release('s2')).status).toBe(204);
    });

    it('renews a lease on a heartbeat newer than its last renewal, and not on an older one', async () => {
      const granted = await upgrade('s3', 'nmp-s');
      const leased = Date.parse(granted.body.leaseExpiresAt);
      await heartbeat('s3', new Date(Date.parse(granted.body.grantedAt) - 1_000));
      expect(await leaseOf('s3')).toBe(leased);
      await heartbeat('s3', new Date(Date.now() + 5));
      expect(await leaseOf('s3')).toBeGreaterThan(leased);
      expect((await release('s3')).status).toBe(204);
    });

    it("skips a holder's lease that another transaction holds on a heartbeat, without waiting", async () => {
      const granted = await upgrade('s3', 'nmp-s');
      const leased = Date.parse(granted.body.leaseExpiresAt);
      const agbot = hub.agbots[0]!;
      const renewNow = () =>
        agbot.app
          .get(GrantStore)
          .renewOnHeartbeat(
            agbot.app.get(DataSource).manager,
            'acme',
            ['s3'],
            new Date(Date.now() + 5),
            agbot.config.CAREEN_UPGRADE_LEASE_SECONDS,
          );
      await whileRowsLocked(
        infra.databaseUrl,
        `SELECT 1 FROM agbot.upgrade_grants WHERE org = 'acme' AND node = 's3' FOR UPDATE`,
        async () => {
          // Were the row waited for, this would not settle until the lock ends, past the test's timeout.
          await renewNow();
          expect(await leaseOf('s3')).toBe(leased);
        },
      );
      await renewNow();
      expect(await leaseOf('s3')).toBeGreaterThan(leased);
      expect((await release('s3')).status).toBe(204);
    });

    it('releases a holder that leaves or changes its group', async () => {
      expect((await upgrade('m1')).status).toBe(200);
      await hub.seedNodes('acme', { m1: 'elsewhere' });
      await monitorSees({
        org: 'acme',
        resource: 'node',
        resourceId: 'm1',
        operation: 'updated',
        data: nodeChangeData('acme', 'm1', 'elsewhere'),
      });
      expect((await hub.history('acme', 'm1')).at(-1)).toEqual({ event: 'released', reason: 'left-group' });
      expect((await upgrade('m2')).status).toBe(200);
      // The exchange publishes the members leaving (node changes) before the group's deletion.
      await hub.seedNodes('acme', { m2: null });
      await monitorSees({
        org: 'acme',
        resource: 'haGroup',
        resourceId: 'moving',
        operation: 'deleted',
      });
      expect((await hub.history('acme', 'm2')).at(-1)).toEqual({ event: 'released', reason: 'left-group' });
    });

    it('keeps a holder that an old group change, seen again, does not list', async () => {
      expect((await upgrade('m1')).status).toBe(200);
      expect((await hub.history('acme', 'm1')).at(-1)).toEqual({ event: 'granted', reason: null });
      // m1 is in "elsewhere" in the mirror: a replayed change from before it joined changes nothing.
      await monitorSees({
        org: 'acme',
        resource: 'haGroup',
        resourceId: 'elsewhere',
        operation: 'updated',
        data: { org: 'acme', name: 'elsewhere', members: [] },
      });
      expect((await hub.history('acme', 'm1')).at(-1)).toEqual({ event: 'granted', reason: null });
      expect((await release('m1')).status).toBe(204);
    });

    it('releases a holder whose node is deleted', async () => {
      expect((await upgrade('d1')).status).toBe(200);
      await hub.deleteSeededNode('acme', 'd1');
      await monitorSees({ org: 'acme', resource: 'node', resourceId: 'd1', operation: 'deleted' });
      expect((await hub.history('acme', 'd1')).at(-1)).toEqual({ event: 'released', reason: 'node-deleted' });
      expect((await upgrade('d2')).status).toBe(200);
    });

    it('halts the group while a holder that failed rolls back, and frees it once rolled back', async () => {
      expect((await upgrade('h1', 'nmp-h')).status).toBe(200);
      await statusChange('h1', 'nmp-h', 'failed', undefined, 'health check failed');
      const refused = await upgrade('h2', 'nmp-h');
      expect(refused.status).toBe(409);
      expect(refused.body.details.holder).toMatchObject({
        node: 'h1',
        halted: true,
        error: 'health check failed',
        leaseExpiresAt: null,
      });
      expect(refused.body.message).toContain('halted');
      // The holder's own release does not end a halt: only its health or an admin does.
      const released = await release('h1');
      expect(released.status).toBe(409);
      expect(released.body.details.code).toBe('UPGRADE_GROUP_HALTED');
      await statusChange('h1', 'nmp-h', 'rolling-back');
      expect((await upgrade('h2', 'nmp-h')).status).toBe(409);
      await statusChange('h1', 'nmp-h', 'rolled-back');
      expect((await upgrade('h2', 'nmp-h')).status).toBe(200);
      expect(await hub.history('acme', 'h1')).toEqual([
        { event: 'granted', reason: null },
        { event: 'halted', reason: 'health check failed' },
        { event: 'released', reason: 'healthy' },
      ]);
      expect((await release('h2')).status).toBe(204);
    });

    it('keeps a member whose rollback failed halting its group, whatever else it reports, until an admin resets it', async () => {
      expect((await upgrade('h1', 'nmp-h')).status).toBe(200);
      await statusChange('h1', 'nmp-h', 'rollback-failed', undefined, 'rollback: disk full');
      await statusChange('h1', 'nmp-h', 'precheck-failed');
      expect(await groupState('halting')).toEqual({
        haGroup: 'halting',
        members: 3,
        state: 'halted',
        holder: expect.objectContaining({ node: 'h1', leaseExpiresAt: null }),
        halted: {
          node: 'h1',
          managementPolicy: 'nmp-h',
          policyRemoved: false,
          error: 'rollback: disk full',
          since: expect.any(String),
        },
      });
      // No lease ends a halt.
      await hub.dataSource.query(
        "UPDATE agbot.upgrade_grants SET lease_expires_at = now() - interval '1 minute' WHERE node = 'h1'",
      );
      expect((await upgrade('h3', 'nmp-h')).status).toBe(409);
      await statusChange('h1', 'nmp-h', 'reset');
      expect((await hub.history('acme', 'h1')).at(-1)).toEqual({ event: 'released', reason: 'reset' });
      expect(await groupState('halting')).toMatchObject({ state: 'free', holder: null, halted: null });
      expect((await upgrade('h3', 'nmp-h')).status).toBe(200);
      expect((await release('h3')).status).toBe(204);
    });

    it('takes the slot for a member that fails without holding it', async () => {
      await statusChange('h1', 'nmp-h', 'failed', undefined, 'its lease had run out');
      expect((await groupState('halting'))?.halted).toMatchObject({
        node: 'h1',
        error: 'its lease had run out',
      });
      expect((await upgrade('h3', 'nmp-h')).status).toBe(409);
      await statusChange('h1', 'nmp-h', 'reset');
      expect((await upgrade('h3', 'nmp-h')).status).toBe(200);
      expect((await release('h3')).status).toBe(204);
    });

    it('frees a slot it took for a failed member once the member is healthy, however late it sees both', async () => {
      // h1 last gave a slot back a minute ago; it failed and rolled back since, both before the
      // monitor read either status.
      await hub.dataSource.query(
        "UPDATE agbot.upgrade_grant_history SET at = at - interval '1 minute' WHERE node = 'h1'",
      );
      const failedAt = new Date(Date.now() - 2_000);
      await statusChange('h1', 'nmp-h', 'failed', failedAt, 'its lease had run out');
      expect(await groupState('halting')).toMatchObject({ state: 'halted' });
      await statusChange('h1', 'nmp-h', 'rolled-back', new Date(failedAt.getTime() + 1_000));
      expect((await hub.history('acme', 'h1')).at(-1)).toEqual({ event: 'released', reason: 'healthy' });
      expect((await upgrade('h3', 'nmp-h')).status).toBe(200);
      expect((await release('h3')).status).toBe(204);
    });

    it('ignores an unhealthy status written before the node last gave its slot back (a replayed change)', async () => {
      const before = new Date(Date.now() - 1_000);
      expect((await upgrade('h1', 'nmp-h')).status).toBe(200);
      expect((await release('h1')).status).toBe(204);
      await statusChange('h1', 'nmp-h', 'rollback-failed', before);
      expect(await groupState('halting')).toMatchObject({ state: 'free' });
    });

    it('lets a halted member go on with another policy, keeping the halt until it is healthy', async () => {
      await statusChange('h1', 'nmp-h', 'rollback-failed', undefined, 'bad');
      const again = await upgrade('h1', 'nmp-fix');
      expect(again.status).toBe(200);
      // A lease it can renew at the usual pace, though a halted slot never runs out.
      expect(Date.parse(again.body.leaseExpiresAt) - Date.now()).toBeGreaterThan(60_000);
      expect((await groupState('halting'))?.halted).toMatchObject({
        node: 'h1',
        managementPolicy: 'nmp-fix',
      });
      expect((await upgrade('h2', 'nmp-fix')).status).toBe(409);
      await statusChange('h1', 'nmp-fix', 'successful');
      expect((await hub.history('acme', 'h1')).at(-1)).toEqual({ event: 'released', reason: 'healthy' });
      expect((await upgrade('h2', 'nmp-fix')).status).toBe(200);
      expect((await release('h2')).status).toBe(204);
    });

    describe("an admin's reset of a group's halt", () => {
      const resetGroup = async (haGroup: string, body: Record<string, unknown> = {}, auth?: Credentials) =>
        http(agbotUrl(1), 'POST', `/v1/orgs/acme/upgrade-groups/${haGroup}/reset`, {
          auth: auth ?? admin,
          body,
        });

      it('ends a halt whose policy was removed, released as a reset, and the next member is granted', async () => {
        await hub.seedManagementPolicy('acme', 'nmp-x', { enabled: true });
        expect((await upgrade('x1', 'nmp-x')).status).toBe(200);
        const failedAt = new Date();
        await statusChange('x1', 'nmp-x', 'rollback-failed', failedAt, 'rollback: disk full');
        await hub.deleteSeededManagementPolicy('acme', 'nmp-x');
        expect((await groupState('resetting'))?.halted).toMatchObject({
          node: 'x1',
          managementPolicy: 'nmp-x',
          policyRemoved: true,
        });
        expect((await upgrade('x2', 'nmp-y')).status).toBe(409);

        const reset = await resetGroup('resetting');
        expect(reset.status).toBe(200);
        expect(reset.body).toEqual({
          haGroup: 'resetting',
          items: [
            {
              node: 'x1',
              managementPolicy: 'nmp-x',
              policyRemoved: true,
              error: 'rollback: disk full',
              haltedAt: expect.any(String),
            },
          ],
          total: 1,
        });
        expect((await hub.history('acme', 'x1')).at(-1)).toEqual({ event: 'released', reason: 'reset' });
        // The failed status, seen again, is older than the reset: it does not halt the group again.
        await statusChange('x1', 'nmp-x', 'rollback-failed', failedAt, 'rollback: disk full');
        expect(await groupState('resetting')).toMatchObject({ state: 'free' });
        expect((await upgrade('x2', 'nmp-y')).status).toBe(200);
        expect((await release('x2')).status).toBe(204);
        // Nothing is left to end: the answer says so.
        expect((await resetGroup('resetting')).body).toEqual({ haGroup: 'resetting', items: [], total: 0 });
      });

      it("ends only the named member's halt", async () => {
        await statusChange('x1', 'nmp-x', 'failed', undefined, 'its lease had run out');
        const other = await resetGroup('resetting', { node: 'x2' });
        expect(other.body).toEqual({ haGroup: 'resetting', items: [], total: 0 });
        expect((await groupState('resetting'))?.halted).toMatchObject({ node: 'x1' });
        expect((await resetGroup('resetting', { node: 'x1' })).body).toMatchObject({
          items: [{ node: 'x1', error: 'its lease had run out' }],
          total: 1,
        });
        expect(await groupState('resetting')).toMatchObject({ state: 'free' });
      });

      it('refuses an unknown group or node, a node of another group, a bad node, and anyone but an org admin', async () => {
        const unknownGroup = await resetGroup('nowhere');
        expect(unknownGroup.status).toBe(404);
        expect(unknownGroup.body.details.code).toBe('UPGRADE_GROUP_NOT_FOUND');
        expect((await resetGroup('resetting', { node: 'ghost' })).body.details.code).toBe(
          'UPGRADE_NODE_NOT_FOUND',
        );
        const elsewhere = await resetGroup('resetting', { node: 'y1' });
        expect(elsewhere.status).toBe(404);
        expect(elsewhere.body.message).toContain('not a member of HA group "resetting" but of "elsewhere"');
        const bad = await resetGroup('resetting', { node: 'not an id' });
        expect(bad.status).toBe(400);
        expect(bad.body.message).toContain('node');
        expect((await resetGroup('resetting', {}, viewer)).status).toBe(403);
        expect((await resetGroup('resetting', {}, await hub.nodeToken('acme', 'x1'))).status).toBe(403);
      });
    });

    it.each([[{ enabled: false }], [{ enabled: true, paused: true }]])(
      'refuses a new grant for a policy that is stopped (%o), and renews one already held',
      async (state) => {
        expect((await upgrade('p1', 'nmp-p')).status).toBe(200);
        await hub.seedManagementPolicy('acme', 'nmp-p', state);
        const refused = await upgrade('p2', 'nmp-p');
        expect(refused.status).toBe(409);
        expect(refused.body.details.code).toBe('UPGRADE_POLICY_STOPPED');
        expect((await upgrade('p1', 'nmp-p')).status).toBe(200);
        expect((await release('p1')).status).toBe(204);
        expect((await upgrade('p2', 'nmp-p')).body.details.code).toBe('UPGRADE_POLICY_STOPPED');
        await hub.seedManagementPolicy('acme', 'nmp-p', { enabled: true, paused: false });
        expect((await upgrade('p2', 'nmp-p')).status).toBe(200);
        expect((await release('p2')).status).toBe(204);
      },
    );

    it('keeps a holder on a node change that does not touch its group', async () => {
      await monitorSees({
        org: 'acme',
        resource: 'node',
        resourceId: 'd2',
        operation: 'updated',
        data: nodeChangeData('acme', 'd2', 'doomed', { rack: 'r9' }),
      });
      await monitorSees({
        org: 'acme',
        resource: 'node',
        resourceId: 'd2',
        operation: 'updated',
        data: nodeChangeData('acme', 'd2', 'doomed'),
      });
      expect((await hub.history('acme', 'd2')).at(-1)).toEqual({ event: 'granted', reason: null });
      expect((await release('d2')).status).toBe(204);
    });
  });

  it('publishes every grant and release on CAREEN_AGBOT', async () => {
    const bus = hub.agbots[0]!.app.get<BusConnection>(BUS);
    const history = await hub.timeline();
    const messages = await eventually(() =>
      readStream(bus, STREAMS.agbot.name, { count: history.length, timeoutMs: 5_000 }),
    );
    const a1 = messages.filter((message) => message.subject.startsWith('careen.agbot.upgrades.acme.a1.'));
    expect(a1.map((message) => message.subject)).toEqual([
      'careen.agbot.upgrades.acme.a1.granted',
      'careen.agbot.upgrades.acme.a1.released',
    ]);
    expect(a1[0]!.headers['ce-type']).toBe('careen.agbot.upgrade-granted');
    expect(a1[1]!.body).toMatchObject({
      org: 'acme',
      node: 'a1',
      haGroup: 'alpha',
      holder: 'agent-upgrade',
      managementPolicy: 'agents-2',
      reason: 'released',
    });
  });

  it('counts grants, refusals and releases in /metrics', async () => {
    const metrics = await http(agbotUrl(), 'GET', '/metrics');
    expect(metrics.body).toMatch(
      /careen_agbot_upgrade_grants_total\{holder="agent-upgrade",service="agbot"\} [1-9]/,
    );
    expect(metrics.body).toMatch(
      /careen_agbot_upgrade_refusals_total\{holder="agent-upgrade",service="agbot"\} [1-9]/,
    );
    expect(metrics.body).toMatch(
      /careen_agbot_upgrade_releases_total\{holder="agent-upgrade",reason="terminal-status"/,
    );
    expect(metrics.body).toContain('careen_agbot_upgrade_holder_age_seconds_bucket');
    expect(metrics.body).toContain('careen_agbot_upgrade_oldest_holder_age_seconds');
  });
});
