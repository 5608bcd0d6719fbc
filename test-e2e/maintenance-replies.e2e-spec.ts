/**
 * Replies that do not come, or say no: a NACK and a silence under each `reply_timeout_policy`,
 * each affecting only the project it is set for; and a project nobody listens to (as the
 * notifier answers) that is never asked while its workloads are still moved off the hosts.
 */
import { NOTIFIER_SUBSCRIBED_SUBJECT, type MaintenanceProjectEventPayload } from '@careen/contracts';
import { createLogger } from '@careen/telemetry';
import { eventually, useTestInfra } from '@careen/testing';
import { type Answer, ReferenceVnfManager } from '@careen/vnf-manager/src/reference-vnf-manager';
import { startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';

describe('maintenance sessions: replies refused, missing, or never asked for', () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;
  let redAnswer: (event: MaintenanceProjectEventPayload) => Answer = () => 'ack';
  const redEvents: MaintenanceProjectEventPayload[] = [];

  /** Runs a session to its end, once red runs on `settled` (the hosts, unless some are cordoned). */
  const run = async (body: { hosts: string[]; [field: string]: unknown }, settled = body.hosts) => {
    await hub.redRunsOn(settled);
    const started = await hub.call('POST', '/v1/maintenance', {
      host_action: { kind: 'simulated', seconds: 0 },
      ...body,
    });
    expect(started.status).toBe(201);
    const id = started.body.session_id as string;
    return eventually(
      async () => {
        const session = (await hub.call('GET', `/v1/maintenance/${id}`)).body;
        expect(session.closed_at).not.toBeNull();
        return session;
      },
      { timeoutMs: 30_000 },
    );
  };

  beforeAll(async () => {
    hub = await startMaintenanceHub(infra);
    // The notifier's answer: blue has no subscriber.
    const notifier = hub.bus.nc.subscribe(NOTIFIER_SUBSCRIBED_SUBJECT, {
      callback: (_error, message) => {
        const { project_id } = message.json<{ project_id: string }>();
        message.respond(JSON.stringify({ subscribed: project_id !== 'blue' }));
      },
    });
    infra.track(async () => notifier.unsubscribe());
    const manager = new ReferenceVnfManager({
      bus: hub.bus,
      project: 'red',
      replyVia: 'bus',
      answer: (event) => redAnswer(event),
      observe: (event) => redEvents.push(event),
      logger: createLogger('vnf-manager', { level: 'error' }),
    });
    await manager.start();
    infra.track(() => manager.stop());
  });

  afterAll(async () => {
    await hub?.close();
  });

  it('skip-host: a NACK for one host leaves that host out, and the rest are maintained', async () => {
    redAnswer = (event) => (event.state === 'PREPARE_MAINTENANCE' && event.host === 's1' ? 'nack' : 'ack');
    const session = await run({
      hosts: ['s1', 's2'],
      reply_timeout_policy: 'fail',
      projects: { red: { reply_timeout_policy: 'skip-host' } },
    });
    expect(session.state).toBe('MAINTENANCE_DONE');
    expect(session.hosts).toEqual([
      expect.objectContaining({
        host: 's1',
        phase: 'skipped',
        reason: 'project "red" did not acknowledge PREPARE_MAINTENANCE (nack)',
      }),
      expect.objectContaining({ host: 's2', phase: 'done' }),
    ]);
    expect((await hub.exchangeCall('GET', '/v1/orgs/acme/nodes/s1')).body.schedulable).toBe(true);
    // The skipped host's slot was given back: another session takes it at once.
    const again = await run({ hosts: ['s1'] });
    expect(again.state).toBe('MAINTENANCE_DONE');
  });

  it('fail: a reply that never comes fails the session, naming the project, and restores the hosts', async () => {
    redAnswer = (event) => (event.state === 'MAINTENANCE' ? 'silent' : 'ack');
    const session = await run({
      hosts: ['h1', 's2'],
      reply_timeout_seconds: 1,
      projects: { red: { reply_timeout_policy: 'fail' } },
    });
    expect(session).toMatchObject({
      state: 'MAINTENANCE_FAILED',
      failure: 'project "red" did not acknowledge MAINTENANCE (timeout)',
    });
    expect(session.hosts.map((host: { phase: string }) => host.phase)).toEqual(['skipped', 'skipped']);
    // Told it is over.
    await eventually(() =>
      expect(redEvents.at(-1)).toMatchObject({
        session_id: session.session_id,
        state: 'MAINTENANCE_COMPLETE',
      }),
    );
  });

  it('proceed: a silence goes on as if acknowledged', async () => {
    redAnswer = (event) => (event.state === 'PREPARE_MAINTENANCE' ? 'silent' : 'ack');
    // The silence is waited out; the acks around it must come within the same timeout, on a busy
    // machine too.
    const session = await run({ hosts: ['s2'], reply_timeout_seconds: 5, reply_timeout_policy: 'proceed' });
    expect(session.state).toBe('MAINTENANCE_DONE');
    const red = session.projects.find((project: { project_id: string }) => project.project_id === 'red');
    expect(red.asks.map((ask: { state: string; answer: string }) => `${ask.state} ${ask.answer}`)).toEqual([
      'MAINTENANCE ack',
      'PREPARE_MAINTENANCE timeout',
      'MAINTENANCE_COMPLETE ack',
    ]);
  });

  it.each([
    ['nack', 'proceed', 'MAINTENANCE_DONE', 'done'],
    ['nack', 'skip-host', 'MAINTENANCE_DONE', 'skipped'],
    ['nack', 'fail', 'MAINTENANCE_FAILED', 'skipped'],
    ['silent', 'proceed', 'MAINTENANCE_DONE', 'done'],
    ['silent', 'skip-host', 'MAINTENANCE_DONE', 'skipped'],
    ['silent', 'fail', 'MAINTENANCE_FAILED', 'skipped'],
  ] as const)(
    'a %s to PREPARE_MAINTENANCE under %s: the session ends %s, the host %s',
    async (answer, policy, state, phase) => {
      redAnswer = (event) => (event.state === 'PREPARE_MAINTENANCE' ? answer : 'ack');
      const session = await run({
        hosts: ['x2'],
        // A silence is waited out; a nack is not, and must not be overtaken by the timeout on a
        // busy machine, nor the acks before it.
        reply_timeout_seconds: answer === 'silent' ? 5 : 10,
        projects: { red: { reply_timeout_policy: policy } },
      });
      expect(session.state).toBe(state);
      expect(session.hosts[0].phase).toBe(phase);
      const red = session.projects.find((project: { project_id: string }) => project.project_id === 'red');
      expect(red.asks.find((ask: { state: string }) => ask.state === 'PREPARE_MAINTENANCE').answer).toBe(
        answer === 'nack' ? 'nack' : 'timeout',
      );
      expect((await hub.exchangeCall('GET', '/v1/orgs/acme/nodes/x2')).body.schedulable).toBe(true);
    },
  );

  it('leaves a host the operator had cordoned cordoned after the session', async () => {
    redAnswer = () => 'ack';
    expect((await hub.exchangeCall('PATCH', '/v1/orgs/acme/nodes/x3', { schedulable: false })).status).toBe(
      200,
    );
    const session = await run({ hosts: ['x3', 'x1'], max_parallel_hosts: 2 }, ['x1']);
    expect(session.state).toBe('MAINTENANCE_DONE');
    expect((await hub.exchangeCall('GET', '/v1/orgs/acme/nodes/x3')).body.schedulable).toBe(false);
    expect((await hub.exchangeCall('GET', '/v1/orgs/acme/nodes/x1')).body.schedulable).toBe(true);
    expect((await hub.exchangeCall('PATCH', '/v1/orgs/acme/nodes/x3', { schedulable: true })).status).toBe(
      200,
    );
  });

  it('gives the hosts back when a paused session is aborted', async () => {
    const started = await hub.call('POST', '/v1/maintenance', { hosts: ['s1'], host_action: 'manual' });
    const id = started.body.session_id as string;
    await eventually(async () =>
      expect((await hub.call('GET', `/v1/maintenance/${id}`)).body.hosts[0].phase).toBe('in-maintenance'),
    );
    expect((await hub.exchangeCall('GET', '/v1/orgs/acme/nodes/s1')).body.schedulable).toBe(false);
    expect((await hub.call('POST', `/v1/maintenance/${id}/pause`)).body.paused).toBe(true);
    expect((await hub.call('DELETE', `/v1/maintenance/${id}`)).body).toMatchObject({
      state: 'MAINTENANCE_FAILED',
      paused: false,
    });
    await eventually(async () => {
      expect((await hub.call('GET', `/v1/maintenance/${id}`)).body.closed_at).not.toBeNull();
      expect((await hub.exchangeCall('GET', '/v1/orgs/acme/nodes/s1')).body.schedulable).toBe(true);
    });
  });

  it('never asks a project nobody listens to, and still moves its workloads off the hosts', async () => {
    redAnswer = () => 'ack';
    const blueHosts = ['h1', 'h2', 's1', 's2'].filter((host) =>
      hub.fleet.running(host).some((workload) => workload.deploymentPolicy === 'blue-web'),
    );
    expect(blueHosts.length).toBeGreaterThan(0);
    const session = await run({ hosts: blueHosts, max_parallel_hosts: 4 });
    expect(session.state).toBe('MAINTENANCE_DONE');
    const blue = session.projects.find((project: { project_id: string }) => project.project_id === 'blue');
    expect(blue).toMatchObject({ subscribed: false, asks: [] });
    expect(session.timeline.some((entry: { project_id: string | null }) => entry.project_id === 'blue')).toBe(
      false,
    );
    expect(
      await hub.bus.jsm.streams.getMessage('CAREEN_MAINT', { last_by_subj: 'careen.maint.project.blue' }),
    ).toBeNull();
    // Its replicas were placed elsewhere while the hosts were out, and stay there.
    const running = ['h1', 'h2', 's1', 's2', 'x1', 'x2', 'x3'].filter((node) =>
      hub.fleet.running(node).some((workload) => workload.deploymentPolicy === 'blue-web'),
    );
    expect(running).toHaveLength(2);
    expect(running.filter((node) => blueHosts.includes(node))).toEqual([]);
  });
});
