/**
 * The orchestrator killed (SIGKILL) in the middle of a group's prepare and again in the middle
 * of a group's deploy, and started again: the rollout completes from what Postgres holds, and
 * from the agents' own timeline no node was asked twice for a phase.
 */
import { freePort } from '@careen/devstack';
import { eventually, http, useTestInfra } from '@careen/testing';
import { KillableService } from './support/killable-service';
import {
  orchestratorCall,
  SEED_STRATEGY,
  startOrchestratorHub,
  type OrchestratorHub,
  ACME_ADMIN,
} from './support/orchestrator-hub';

interface Report {
  state: string;
  current_group: string | null;
  groups: { name: string; phase: string }[];
  nodes: {
    node: string;
    group: string | null;
    state: string;
    sent_at: string | null;
    prepared_at: string | null;
  }[];
}

describe('deployment orchestrator: killed mid-phase', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let service: KillableService;
  let call: ReturnType<typeof orchestratorCall>;

  beforeAll(async () => {
    hub = await startOrchestratorHub(infra);
    service = new KillableService('deployment-orchestrator', await freePort(), () => ({
      CAREEN_DATABASE_URL: infra.databaseUrl,
      CAREEN_NATS_URL: infra.natsUrl,
      CAREEN_DEPLOYMENT_ORCHESTRATOR_PORT: String(service.port),
      ...hub.orchestratorEnv,
    }));
    await service.start();
    call = orchestratorCall(service.url);
  });

  afterAll(async () => {
    await service?.kill();
    await hub?.close();
  });

  /** Waits until the stored rollout is in the middle of `phase` of some group, then kills and restarts. */
  async function crashWhen(id: string, phase: 'preparing' | 'deploying'): Promise<string> {
    const group = await eventually(
      async () => {
        const report = (await call('GET', `/v1/rollouts/${id}`)).body as Report;
        const current = report.groups.find(
          (each) => each.name === report.current_group && each.phase === phase,
        );
        const waiting = (state: string) =>
          report.nodes.some(
            (node) => node.group === current?.name && node.sent_at !== null && node.state === state,
          );
        expect(current && waiting(phase === 'preparing' ? 'not started' : 'prepared')).toBe(true);
        return current!.name;
      },
      { timeoutMs: 60_000, intervalMs: 10 },
    );
    await service.kill();
    await service.start();
    return group;
  }

  it('completes after a crash mid-prepare and another mid-deploy, asking no node twice', async () => {
    const published = await http(service.url, 'POST', '/v1/strategies', {
      auth: ACME_ADMIN,
      rawBody: Buffer.from(SEED_STRATEGY),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(published.status).toBe(201);
    const started = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '2.0.0' });
    expect(started.status).toBe(201);
    const id = started.body.id as string;

    const prepared = await crashWhen(id, 'preparing');
    const deployed = await crashWhen(id, 'deploying');
    const report = await eventually(
      async () => {
        const answer = (await call('GET', `/v1/rollouts/${id}`)).body as Report;
        expect(answer.state).toBe('completed');
        return answer;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect(report.groups.every((group) => group.phase === 'succeeded')).toBe(true);
    expect([prepared, deployed].every((name) => report.groups.some((group) => group.name === name))).toBe(
      true,
    );

    const prefix = `rollout-${id.slice(0, 8)}-`;
    for (const agent of hub.fleet.agents)
      for (const phase of ['prepare', 'deploy']) {
        const asked = hub.timeline.filter(
          (entry) =>
            entry.node === agent.node &&
            entry.nmp.startsWith(prefix) &&
            entry.nmp.endsWith(`-${phase}`) &&
            entry.status === 'downloading',
        );
        expect([agent.node, phase, asked.length]).toEqual([agent.node, phase, 1]);
      }
  });
});
