/**
 * What a maintenance session says of itself, against the real exchange, agbot and maintenance
 * service: paused, the host under way finishes and gives its HA-group slot back but no further
 * host asks for one until resumed; aborted, a host that was out of service is counted
 * interrupted, not skipped; waiting for a slot, the holder is named, or the freeze that keeps it;
 * back in service, a host keeps its slot until it runs its workloads again, or says what it
 * lacked once it was waited for long enough.
 */
import { eventually, http, useTestInfra } from '@careen/testing';
import { ADA, startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';

describe('maintenance sessions: pause, counts and slot holders', () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;

  const session = async (id: string) => (await hub.call('GET', `/v1/maintenance/${id}`)).body;
  const phases = async (id: string) =>
    Object.fromEntries(
      (await session(id)).hosts.map((host: { host: string; phase: string }) => [host.host, host.phase]),
    );
  const pairSlot = async () => {
    const groups = (await http(hub.agbot.url, 'GET', '/v1/orgs/acme/upgrade-groups', { auth: ADA })).body;
    return groups.items.find((group: { haGroup: string }) => group.haGroup === 'pair');
  };

  beforeAll(async () => {
    hub = await startMaintenanceHub(infra, {
      env: { CAREEN_MAINTENANCE_ASSUME_SUBSCRIBED: 'false', CAREEN_MAINTENANCE_SERVE_AGAIN_SECONDS: '10' },
    });
  });

  afterAll(async () => {
    await hub?.close();
  });

  it('takes no slot for the next host while paused, lets the host under way finish, and goes on when resumed', async () => {
    const started = await hub.call('POST', '/v1/maintenance', { hosts: ['h1', 'h2'], host_action: 'manual' });
    expect(started.status).toBe(201);
    const id = started.body.session_id as string;
    await eventually(async () => expect((await phases(id)).h1).toBe('in-maintenance'), { timeoutMs: 45_000 });

    expect((await hub.call('POST', `/v1/maintenance/${id}/pause`)).body.paused).toBe(true);
    const completed = await hub.call('POST', `/v1/maintenance/${id}/hosts/h1/complete`);
    expect(completed.status).toBe(200);
    expect(completed.body.hosts.map((host: { phase: string }) => host.phase)).toEqual([
      'returning',
      'waiting',
    ]);

    // The host that was under way is back in service and its slot given back once it serves, though paused.
    await eventually(async () => {
      expect((await hub.exchangeCall('GET', '/v1/orgs/acme/nodes/h1')).body.schedulable).toBe(true);
      expect((await phases(id)).h1).toBe('done');
      expect(await pairSlot()).toMatchObject({ state: 'free' });
    });
    expect(await session(id)).toMatchObject({ paused: true, state: 'PLANNED_MAINTENANCE' });
    expect((await phases(id)).h2).toBe('waiting');

    expect((await hub.call('POST', `/v1/maintenance/${id}/resume`)).body.paused).toBe(false);
    await eventually(async () => expect((await phases(id)).h2).toBe('in-maintenance'), { timeoutMs: 45_000 });
    expect((await hub.call('POST', `/v1/maintenance/${id}/hosts/h2/complete`)).status).toBe(200);
    await eventually(async () => expect((await session(id)).closed_at).not.toBeNull());
    expect(await session(id)).toMatchObject({ state: 'MAINTENANCE_DONE', paused: false });
  });

  it('counts a host that was in maintenance when aborted as interrupted, not skipped', async () => {
    const started = await hub.call('POST', '/v1/maintenance', {
      hosts: ['s1', 's2', 'x1'],
      host_action: 'manual',
    });
    const id = started.body.session_id as string;
    expect(started.body).toMatchObject({
      counts: { hosts: 3, waiting: 2, under_way: 1, done: 0, skipped: 0, interrupted: 0 },
      hosts_summary: '0/3 done, 1 under way',
    });
    await eventually(async () => expect((await phases(id)).s1).toBe('in-maintenance'), { timeoutMs: 45_000 });
    expect((await hub.call('POST', `/v1/maintenance/${id}/hosts/s1/complete`)).status).toBe(200);
    await eventually(async () => expect((await phases(id)).s2).toBe('in-maintenance'), { timeoutMs: 45_000 });

    const aborted = await hub.call('DELETE', `/v1/maintenance/${id}`);
    expect(aborted.body.hosts).toEqual([
      expect.objectContaining({ host: 's1', phase: 'done', interrupted_in: null }),
      expect.objectContaining({
        host: 's2',
        phase: 'interrupted',
        interrupted_in: 'in-maintenance',
        reason: 'aborted by an admin',
      }),
      expect.objectContaining({ host: 'x1', phase: 'skipped', reason: 'aborted by an admin' }),
    ]);
    expect(aborted.body).toMatchObject({
      counts: { hosts: 3, waiting: 0, under_way: 0, done: 1, skipped: 1, interrupted: 1 },
      hosts_summary: '1/3 done, 1 interrupted, 1 skipped',
    });
    await eventually(async () => expect((await session(id)).closed_at).not.toBeNull());
    const listed = (await hub.call('GET', '/v1/maintenance')).body.items.find(
      (each: { session_id: string }) => each.session_id === id,
    );
    expect(listed.hosts_summary).toBe('1/3 done, 1 interrupted, 1 skipped');
  });

  it('names who holds the slot a host waits for: kind, node, session and since when', async () => {
    const first = (await hub.call('POST', '/v1/maintenance', { hosts: ['h1'], host_action: 'manual' })).body;
    await eventually(async () => expect((await phases(first.session_id)).h1).toBe('in-maintenance'), {
      timeoutMs: 45_000,
    });
    const holder = await pairSlot();
    expect(holder).toMatchObject({ state: 'busy', holder: { node: 'h1', kind: 'maintenance' } });

    const second = (await hub.call('POST', '/v1/maintenance', { hosts: ['h2'], host_action: 'manual' })).body;
    const waiting = await eventually(async () => {
      const host = (await session(second.session_id)).hosts[0];
      expect(host.waiting_for).not.toBeNull();
      return host;
    });
    expect(waiting).toMatchObject({
      phase: 'slot',
      waiting_for: {
        kind: 'maintenance',
        node: 'h1',
        management_policy: null,
        session: first.session_id,
        since: holder.holder.grantedAt,
        halted: false,
      },
    });
    const listed = (await hub.call('GET', '/v1/maintenance')).body.items.find(
      (each: { session_id: string }) => each.session_id === second.session_id,
    );
    expect(listed.hosts[0].waiting_for).toMatchObject({ node: 'h1', session: first.session_id });

    // Once the holder is done, the waiter takes the slot and says nothing of a holder any more.
    expect((await hub.call('POST', `/v1/maintenance/${first.session_id}/hosts/h1/complete`)).status).toBe(
      200,
    );
    await eventually(
      async () =>
        expect((await session(second.session_id)).hosts[0]).toMatchObject({
          phase: 'in-maintenance',
          waiting_for: null,
        }),
      { timeoutMs: 45_000 },
    );
    expect((await hub.call('POST', `/v1/maintenance/${second.session_id}/hosts/h2/complete`)).status).toBe(
      200,
    );
  });

  it('says why a host may not take its slot during a freeze, and takes it once the freeze is removed', async () => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const frozen = await hub.exchangeCall('PUT', '/v1/orgs/acme/freezes/hold-s2', {
      selector: { nodes: ['s2'] },
      from: new Date(Date.now() - 60_000).toISOString(),
      until,
    });
    expect(frozen.status).toBe(201);
    // The agbot learns of the freeze from the change feed: the session starts once it has.
    await eventually(async () => {
      const outlook = await http(hub.agbot.url, 'GET', '/v1/orgs/acme/nodes/s2/disruption', { auth: ADA });
      expect(outlook.body.mayStart).toBe(false);
    });
    const started = (await hub.call('POST', '/v1/maintenance', { hosts: ['s2'], host_action: 'manual' }))
      .body;
    const waiting = await eventually(
      async () => {
        const host = (await session(started.session_id)).hosts[0];
        expect(host.reason).toContain('freeze "hold-s2"');
        return host;
      },
      { timeoutMs: 45_000 },
    );
    expect(waiting).toMatchObject({ phase: 'slot', waiting_for: null });
    expect(waiting.reason).toContain(`may not be disrupted now: freeze "hold-s2" until ${until}`);

    expect((await hub.exchangeCall('DELETE', '/v1/orgs/acme/freezes/hold-s2')).status).toBe(204);
    await eventually(
      async () =>
        expect((await session(started.session_id)).hosts[0]).toMatchObject({
          phase: 'in-maintenance',
          reason: null,
        }),
      { timeoutMs: 45_000 },
    );
    expect((await hub.call('POST', `/v1/maintenance/${started.session_id}/hosts/s2/complete`)).status).toBe(
      200,
    );
  });

  describe('a host back in service', () => {
    const placedOn = async (node: string) =>
      (await http(hub.agbot.url, 'GET', `/v1/orgs/acme/nodes/${node}/placement`, { auth: ADA })).body;
    const redOn = (node: string) =>
      hub.fleet.running(node).some((workload) => workload.deploymentPolicy === 'red-web');

    it('keeps its HA group slot until it runs its workloads again, so the group never stops serving', async () => {
      const outages: string[] = [];
      const unwatch = hub.fleet.watch(() => {
        if (!redOn('h1') && !redOn('h2')) outages.push(new Date().toISOString());
      });
      try {
        const id = (await hub.call('POST', '/v1/maintenance', { hosts: ['h1', 'h2'], host_action: 'manual' }))
          .body.session_id as string;
        await eventually(async () => expect((await phases(id)).h1).toBe('in-maintenance'), {
          timeoutMs: 45_000,
        });
        // h1's agent is away: back in service, it will not run what it is given until it returns.
        hub.fleet.setOffline('h1', true);
        expect((await hub.call('POST', `/v1/maintenance/${id}/hosts/h1/complete`)).status).toBe(200);
        // The agbot took the uncordon in and the exchange has red-web for h1 again; the slot
        // used to go back before this.
        await eventually(async () =>
          expect(await placedOn('h1')).toMatchObject({
            schedulable: true,
            delivered: true,
            workloads: [expect.objectContaining({ deploymentPolicy: 'red-web' })],
          }),
        );
        expect(await pairSlot()).toMatchObject({
          state: 'busy',
          holder: { node: 'h1', kind: 'maintenance' },
        });
        expect(await phases(id)).toEqual({ h1: 'returning', h2: 'waiting' });
        expect(redOn('h1')).toBe(false);

        hub.fleet.setOffline('h1', false);
        await eventually(async () => expect((await phases(id)).h2).toBe('in-maintenance'), {
          timeoutMs: 45_000,
        });
        expect((await phases(id)).h1).toBe('done');
        expect((await hub.call('POST', `/v1/maintenance/${id}/hosts/h2/complete`)).status).toBe(200);
        await eventually(async () => expect((await session(id)).closed_at).not.toBeNull());
        expect((await session(id)).state).toBe('MAINTENANCE_DONE');
        expect(outages).toEqual([]);
      } finally {
        unwatch();
      }
    });

    it('gives the slot back once it was waited for long enough, and the timeline says what it lacked', async () => {
      const id = (await hub.call('POST', '/v1/maintenance', { hosts: ['s1'], host_action: 'manual' })).body
        .session_id as string;
      await eventually(async () => expect((await phases(id)).s1).toBe('in-maintenance'), {
        timeoutMs: 45_000,
      });
      hub.fleet.setOffline('s1', true);
      try {
        expect((await hub.call('POST', `/v1/maintenance/${id}/hosts/s1/complete`)).status).toBe(200);
        expect((await phases(id)).s1).toBe('returning');
        await eventually(async () => expect((await session(id)).closed_at).not.toBeNull(), {
          timeoutMs: 30_000,
        });
        const ended = await session(id);
        expect(ended).toMatchObject({
          state: 'MAINTENANCE_DONE',
          hosts: [expect.objectContaining({ phase: 'done' })],
        });
        expect(ended.timeline).toContainEqual(
          expect.objectContaining({
            kind: 'note',
            host: 's1',
            detail: {
              message:
                "host s1 did not serve again within 10 s (red-web not running): its HA group's slot was given back",
              waitedSeconds: 10,
              missing: 'red-web not running',
            },
          }),
        );
      } finally {
        hub.fleet.setOffline('s1', false);
      }
      await hub.redRunsOn(['s1']);
    });
  });
});
