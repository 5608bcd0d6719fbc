/**
 * A maintenance session over four hosts (an HA group of two, two lone hosts) with two projects
 * answered by the reference VNF manager, one on the bus and one by `reply_url`, on the real
 * exchange, agbot and JetStream. Every event comes in order and every reply is recorded; no host
 * goes IN_MAINTENANCE before its workloads are off it (invariant 7); the HA group always keeps a
 * member serving.
 */
import { type MaintenanceProjectEventPayload, type MaintenanceReplyPayload } from '@careen/contracts';
import { createLogger } from '@careen/telemetry';
import { eventually, http, readStream, useTestInfra } from '@careen/testing';
import { ReferenceVnfManager } from '@careen/vnf-manager/src/reference-vnf-manager';
import { HOSTS, startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';

interface Seen {
  event: MaintenanceProjectEventPayload;
  reply: MaintenanceReplyPayload | undefined;
}

describe('maintenance sessions: the whole workflow', () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;
  const seen: Record<string, Seen[]> = { red: [], blue: [] };
  const outages: string[] = [];
  let unwatch: (() => void) | undefined;
  let fleetChanges = 0;

  beforeAll(async () => {
    hub = await startMaintenanceHub(infra);
    const logger = createLogger('vnf-manager', { level: 'error' });
    for (const [project, replyVia] of [
      ['red', 'bus'],
      ['blue', 'http'],
    ] as const) {
      const manager = new ReferenceVnfManager({
        bus: hub.bus,
        project,
        replyVia,
        observe: (event, reply) => seen[project]!.push({ event, reply }),
        logger,
      });
      await manager.start();
      infra.track(() => manager.stop());
    }
    // Every state the fleet passes through is checked, not samples of it.
    unwatch = hub.fleet.watch(() => {
      fleetChanges++;
      if (
        !['h1', 'h2'].some((host) =>
          hub.fleet.running(host).some((each) => each.deploymentPolicy === 'red-web'),
        )
      )
        outages.push(new Date().toISOString());
    });
  });

  afterAll(async () => {
    unwatch?.();
    await hub?.close();
  });

  it('takes every host through maintenance with the projects asked, in order, and no service lost', async () => {
    const started = await hub.call('POST', '/v1/maintenance', {
      hosts: HOSTS,
      host_action: 'manual',
      max_parallel_hosts: 2,
      reply_timeout_seconds: 30,
      metadata: { reason: 'kernel update' },
    });
    expect([started.status, started.body.message]).toEqual([201, undefined]);
    const id = started.body.session_id as string;
    expect(started.body.projects.map((project: { project_id: string }) => project.project_id)).toEqual([
      'blue',
      'red',
    ]);

    // Each host is completed by hand once it is in maintenance, and only if it is empty then.
    const completed: string[] = [];
    const notEmpty: string[] = [];
    await eventually(
      async () => {
        const session = (await hub.call('GET', `/v1/maintenance/${id}`)).body;
        for (const host of session.hosts as { host: string; phase: string }[]) {
          if (host.phase !== 'in-maintenance' || completed.includes(host.host)) continue;
          if (hub.fleet.running(host.host).length > 0) notEmpty.push(host.host);
          expect((await hub.call('POST', `/v1/maintenance/${id}/hosts/${host.host}/complete`)).status).toBe(
            200,
          );
          completed.push(host.host);
        }
        expect(session.state).toBe('MAINTENANCE_DONE');
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    expect(completed.sort()).toEqual([...HOSTS].sort());
    expect(notEmpty).toEqual([]);

    const session = (await hub.call('GET', `/v1/maintenance/${id}`)).body;
    expect(session.hosts.map((host: { phase: string }) => host.phase)).toEqual([
      'done',
      'done',
      'done',
      'done',
    ]);
    for (const project of session.projects) {
      expect(project.asks.length).toBeGreaterThan(2);
      expect(project.asks.every((ask: { answer: string }) => ask.answer === 'ack')).toBe(true);
    }

    // The events each project saw: MAINTENANCE first, MAINTENANCE_COMPLETE last, and for each of
    // its hosts a PREPARE (or PLANNED) before its INSTANCE_ACTION_DONE.
    for (const project of ['red', 'blue']) {
      await eventually(() => expect(seen[project]!.at(-1)?.event.state).toBe('MAINTENANCE_COMPLETE'));
      const states = seen[project]!.filter((each) => each.event.session_id === id).map((each) => each.event);
      expect(states[0]!.state).toBe('MAINTENANCE');
      const hosts = new Set(states.filter((event) => event.host).map((event) => event.host!));
      for (const host of hosts) {
        const prepared = states.findIndex(
          (event) =>
            event.host === host && ['PREPARE_MAINTENANCE', 'PLANNED_MAINTENANCE'].includes(event.state),
        );
        const done = states.findIndex(
          (event) => event.host === host && event.state === 'INSTANCE_ACTION_DONE',
        );
        expect(prepared).toBeGreaterThanOrEqual(0);
        expect(done).toBeGreaterThan(prepared);
      }
      // Every state that waited was answered, each with an action per instance on the host.
      for (const { event, reply } of seen[project]!.filter((each) => each.event.reply_url)) {
        expect(reply?.state).toBe(`ACK_${event.state}`);
        if (event.state === 'PREPARE_MAINTENANCE')
          expect(Object.values(reply!.instance_actions ?? {})).toEqual(
            expect.arrayContaining([expect.stringMatching(/MIGRATE/)]),
          );
      }
    }
    expect(seen.red!.filter((each) => each.event.host).length).toBeGreaterThanOrEqual(HOSTS.length * 2);

    // The timeline holds every event sent and every reply received, the red ones off the bus.
    const received = session.timeline.filter((entry: { kind: string }) => entry.kind === 'received');
    expect(received.filter((entry: { project_id: string }) => entry.project_id === 'red')).not.toHaveLength(
      0,
    );
    expect(
      received
        .filter((entry: { project_id: string | null }) => entry.project_id !== null)
        .map(
          (entry: { project_id: string; detail: { via: string } }) =>
            `${entry.project_id}:${entry.detail.via}`,
        ),
    ).toEqual(expect.arrayContaining(['red:bus', 'blue:http']));

    // Admin events: IN_MAINTENANCE and MAINTENANCE_COMPLETE for each host, in that order.
    const admin = await readStream(hub.bus, 'CAREEN_MAINT', {
      count: 8,
      filterSubject: 'careen.maint.admin.>',
    });
    for (const host of HOSTS)
      expect(
        admin.filter((message) => message.body.host === host).map((message) => message.body.state),
      ).toEqual(['IN_MAINTENANCE', 'MAINTENANCE_COMPLETE']);

    // Hosts back in service, slots given back, the hosts free for another session.
    for (const host of HOSTS)
      expect((await hub.exchangeCall('GET', `/v1/orgs/acme/nodes/${host}`)).body.schedulable).toBe(true);
    await eventually(async () =>
      expect((await hub.call('GET', `/v1/maintenance/${id}`)).body.closed_at).not.toBeNull(),
    );
    // The hosts' services moved during the session: the check above was not vacuous.
    expect(fleetChanges).toBeGreaterThan(0);
    expect(outages).toEqual([]);

    const metrics = (await http(hub.maintenance!.url, 'GET', '/metrics')).body as string;
    expect(metrics).toMatch(/careen_maintenance_sessions\{state="MAINTENANCE_DONE"[^}]*\} 1/);
    expect(metrics).toMatch(
      /careen_maintenance_replies_total\{via="bus",answer="ack",outcome="taken"[^}]*\} [1-9]/,
    );
    expect(metrics).toMatch(
      /careen_maintenance_replies_total\{via="http",answer="ack",outcome="taken"[^}]*\} [1-9]/,
    );
    expect(metrics).toMatch(/careen_maintenance_reply_latency_seconds_count\{[^}]*\} [1-9]/);
    expect(metrics).toMatch(/careen_maintenance_hosts_in_maintenance\{[^}]*\} 0/);
  });
});
