/**
 * One semaphore for every kind of disruption: a deployment-strategy rollout and a maintenance
 * session over the same HA groups at once, on the real exchange, agbot, orchestrator and
 * maintenance service with simulated agents. From the agents' timeline and the session's, no
 * group ever has two members down at once, and both finish.
 */
import { type DeploymentOrchestratorConfig } from '@careen/deployment-orchestrator/src/deployment-orchestrator.config';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { type MaintenanceSessionConfig } from '@careen/maintenance-session/src/maintenance-session.config';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { eventually, http, useTestInfra } from '@careen/testing';
import { maintenanceSpans, overlapsWithinGroups, upgradeSpans } from './support/down-spans';
import {
  ACME_ADMIN,
  orchestratorCall,
  SEED_STRATEGY,
  startOrchestratorHub,
  type OrchestratorHub,
} from './support/orchestrator-hub';

describe('a strategy rollout and a maintenance session over the same HA groups', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let maintenance: InProcessService<MaintenanceSessionConfig>;

  beforeAll(async () => {
    hub = await startOrchestratorHub(infra);
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    maintenance = await startServiceInProcess(maintenanceSessionService, infra, {
      CAREEN_EXCHANGE_URL: hub.rollouts.exchange.url,
      CAREEN_AGBOT_URL: hub.rollouts.agbot.url,
      CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: 'root-password-1',
      CAREEN_MAINTENANCE_TICK_MS: '50',
    });
  });

  afterAll(async () => {
    await maintenance?.close();
    await orchestrator?.close();
    await hub?.close();
  });

  it('never takes two members of a group down at once, and both finish', async () => {
    const call = orchestratorCall(orchestrator.url);
    const published = await http(orchestrator.url, 'POST', '/v1/strategies', {
      auth: ACME_ADMIN,
      rawBody: Buffer.from(SEED_STRATEGY),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(published.status).toBe(201);
    const nodes = hub.fleet.agents.map((agent) => agent.node);
    const session = await http(maintenance.url, 'POST', '/v1/maintenance', {
      auth: ACME_ADMIN,
      body: { hosts: nodes, host_action: { kind: 'simulated', seconds: 1 }, max_parallel_hosts: 9 },
    });
    expect(session.status).toBe(201);
    const rollout = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '2.0.0' });
    expect(rollout.status).toBe(201);

    const sessionDone = await eventually(
      async () => {
        const answer = (
          await http(maintenance.url, 'GET', `/v1/maintenance/${session.body.session_id}`, {
            auth: ACME_ADMIN,
          })
        ).body;
        expect(answer.state).toBe('MAINTENANCE_DONE');
        return answer;
      },
      { timeoutMs: 90_000 },
    );
    const report = await eventually(
      async () => {
        const answer = (await call('GET', `/v1/rollouts/${rollout.body.id}`)).body;
        expect(answer.state).toBe('completed');
        return answer;
      },
      { timeoutMs: 90_000 },
    );
    expect(report.counts.success).toBe(9);

    const spans = [...upgradeSpans(hub.timeline), ...maintenanceSpans(sessionDone.timeline)];
    expect(spans.filter((span) => span.what === 'upgrade')).toHaveLength(9);
    expect(spans.filter((span) => span.what === 'maintenance')).toHaveLength(9);
    expect(
      overlapsWithinGroups(spans, new Map(hub.fleet.agents.map((agent) => [agent.node, agent.haGroup]))),
    ).toEqual([]);
  });
});
