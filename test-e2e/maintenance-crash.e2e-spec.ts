/**
 * The maintenance service killed (SIGKILL) at each state of the workflow and started again: the
 * session completes, no project is asked twice for a state it acknowledged, and no reply is lost
 * (replies sent while it was down, on the bus or retried to reply_url, are taken after).
 */
import { type MaintenanceProjectEventPayload } from '@careen/contracts';
import { freePort } from '@careen/devstack';
import { createLogger } from '@careen/telemetry';
import { eventually, http, readStream, useTestInfra } from '@careen/testing';
import { type Answer, ReferenceVnfManager } from '@careen/vnf-manager/src/reference-vnf-manager';
import { KillableService } from './support/killable-service';
import { ADA, startMaintenanceHub, type MaintenanceHub } from './support/maintenance-hub';

/** Holds a project's reply to one state until released. */
class Gate {
  state: string | undefined;
  private open: (() => void) | undefined;
  private opened = Promise.resolve();
  reached = false;

  hold(state: string): void {
    this.state = state;
    this.reached = false;
    this.opened = new Promise((done) => (this.open = done));
  }

  async pass(event: MaintenanceProjectEventPayload): Promise<Answer> {
    if (event.state === this.state) {
      this.reached = true;
      await this.opened;
    }
    return 'ack';
  }

  release(): void {
    this.state = undefined;
    this.open?.();
  }
}

describe('maintenance sessions: the service killed at each state', () => {
  const infra = useTestInfra();
  let hub: MaintenanceHub;
  let service: KillableService;
  const gates: Record<string, Gate> = { red: new Gate(), blue: new Gate(), green: new Gate() };
  const call = (method: string, path: string, body?: object) =>
    http(service.url, method, path, { auth: ADA, body });

  /**
   * Runs a session to its end, killing the service once `when` holds (`whileDown` runs before it
   * starts again), and answers what it asks after.
   */
  async function crashDuring(
    body: object,
    when: (session: {
      session_id: string;
      state: string;
      hosts: { host: string; phase: string }[];
    }) => boolean,
    whileDown: () => void = () => {},
  ) {
    await hub.redRunsOn((body as { hosts: string[] }).hosts);
    const started = await call('POST', '/v1/maintenance', body);
    expect([started.status, started.body.message]).toEqual([201, undefined]);
    const id = started.body.session_id as string;
    await eventually(async () => expect(when((await call('GET', `/v1/maintenance/${id}`)).body)).toBe(true), {
      timeoutMs: 30_000,
      intervalMs: 20,
    }).catch(async (error: unknown) => {
      // Say where the session stood, for a failure to be understood.
      const session = (await call('GET', `/v1/maintenance/${id}`)).body;
      throw new Error(`${String(error)}\nthe session: ${JSON.stringify(session, null, 1)}`);
    });
    await service.kill();
    for (const gate of Object.values(gates)) gate.release();
    whileDown();
    await service.start();
    const session = await eventually(
      async () => {
        const answer = (await call('GET', `/v1/maintenance/${id}`)).body;
        for (const host of answer.hosts as { host: string; phase: string }[])
          if (host.phase === 'in-maintenance' && answer.host_action.kind === 'manual')
            await call('POST', `/v1/maintenance/${id}/hosts/${host.host}/complete`);
        expect(answer.state).toBe('MAINTENANCE_DONE');
        // Closed too (its hosts given back), so the next session may take them.
        expect(answer.closed_at).not.toBeNull();
        return answer;
      },
      { timeoutMs: 45_000, intervalMs: 100 },
    );
    // Every ask acknowledged, and each asked once: no event sent twice for a state and host.
    for (const project of session.projects as { project_id: string; asks: { answer: string }[] }[])
      expect(project.asks.map((ask) => ask.answer).filter((answer) => answer !== 'ack')).toEqual([]);
    const info = await hub.bus.jsm.streams.info('CAREEN_MAINT', {
      subjects_filter: 'careen.maint.project.>',
    });
    const total = Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
    const events = (
      await readStream(hub.bus, 'CAREEN_MAINT', { count: total, filterSubject: 'careen.maint.project.>' })
    )
      .map((message) => message.body as MaintenanceProjectEventPayload)
      .filter((event) => event.session_id === id);
    const keys = events.map((event) => `${event.project_id} ${event.state} ${event.host ?? ''}`);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
    return { session, events };
  }

  beforeAll(async () => {
    const port = await freePort();
    hub = await startMaintenanceHub(infra, {
      inProcess: false,
      green: true,
      // Its own process, started while the fleet takes its workloads.
      alongside: ({ maintenanceEnv }) => {
        service = new KillableService('maintenance-session', port, () => ({
          CAREEN_DATABASE_URL: infra.databaseUrl,
          CAREEN_NATS_URL: infra.natsUrl,
          CAREEN_MAINTENANCE_SESSION_PORT: String(port),
          ...maintenanceEnv,
          CAREEN_MAINTENANCE_PUBLIC_URL: `http://127.0.0.1:${port}`,
        }));
        return service.start();
      },
    });
    const logger = createLogger('vnf-manager', { level: 'error' });
    for (const [project, replyVia] of [
      ['red', 'bus'],
      ['blue', 'http'],
      ['green', 'bus'],
    ] as const) {
      const manager = new ReferenceVnfManager({
        bus: hub.bus,
        project,
        replyVia,
        answer: (event) => gates[project]!.pass(event),
        logger,
        // What it could not do while the service was down (send a reply to reply_url, read the
        // instances of an event) is tried again soon after the service is back, for longer
        // than the service may take to start.
        retry: { maxDeliver: 300, backoffMs: [100, 200] },
      });
      await manager.start();
      infra.track(() => manager.stop());
    }
  });

  afterAll(async () => {
    for (const gate of Object.values(gates)) gate.release();
    await service?.kill();
    await hub?.close();
  });

  it.each([['MAINTENANCE'], ['PREPARE_MAINTENANCE'], ['PLANNED_MAINTENANCE'], ['MAINTENANCE_COMPLETE']])(
    'killed in %s while a reply is held, it resumes and takes the reply sent while it was down',
    async (state) => {
      gates.red!.hold(state);
      gates.blue!.hold(state);
      await crashDuring(
        { hosts: ['s2', 'h2'], host_action: { kind: 'simulated', seconds: 0 }, max_parallel_hosts: 1 },
        (session) => session.state === state && gates.red!.reached,
      );
    },
  );

  it('killed in START_MAINTENANCE, with a host in maintenance, it resumes and completes it', async () => {
    const { session } = await crashDuring({ hosts: ['s2', 'x2'], host_action: 'manual' }, (current) =>
      current.hosts.some((host) => host.phase === 'in-maintenance'),
    );
    expect(session.hosts.map((host: { phase: string }) => host.phase)).toEqual(['done', 'done']);
  });

  it('killed with a host back in service that does not serve yet, it resumes and ends once the host serves', async () => {
    let completed = false;
    const { session } = await crashDuring(
      { hosts: ['s2'], host_action: 'manual' },
      (current) => {
        const [s2] = current.hosts;
        // Its agent goes away as its work is reported done: back in service, it runs nothing.
        if (s2!.phase === 'in-maintenance' && !completed) {
          completed = true;
          hub.fleet.setOffline('s2', true);
          void call('POST', `/v1/maintenance/${current.session_id}/hosts/s2/complete`);
        }
        return s2!.phase === 'returning';
      },
      () => hub.fleet.setOffline('s2', false),
    );
    expect(session.hosts.map((host: { phase: string }) => host.phase)).toEqual(['done']);
    // It kept its slot through the crash and gave it back once it served: no note of a timeout.
    expect(
      session.timeline.filter(
        (entry: { detail: { missing?: string } }) => entry.detail.missing !== undefined,
      ),
    ).toEqual([]);
  });

  it('killed in DOWN_SCALE, it resumes; the project scaled down is asked once', async () => {
    gates.green!.hold('DOWN_SCALE');
    const { events } = await crashDuring(
      { hosts: ['h1', 's1'], host_action: { kind: 'simulated', seconds: 0 }, max_parallel_hosts: 2 },
      (session) => session.state === 'DOWN_SCALE' && gates.green!.reached,
    );
    expect(events.filter((event) => event.state === 'DOWN_SCALE').map((event) => event.project_id)).toEqual([
      'green',
    ]);
  });
});
