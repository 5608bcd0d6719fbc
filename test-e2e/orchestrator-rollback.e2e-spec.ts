/**
 * A strategy rollout back to an older agent version, on the real exchange, agbot and orchestrator
 * with simulated agents: once the fleet runs 2.0.0, a rollout to 1.0.0 is refused, naming every
 * node and the version it runs, and leaves them alone; with `allow_downgrade` its policies carry
 * the flag, every agent installs 1.0.0 and reports it, and the exchange's history marks each
 * node's steps a rollback.
 */
import { type DeploymentOrchestratorConfig } from '@careen/deployment-orchestrator/src/deployment-orchestrator.config';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { eventually, useTestInfra } from '@careen/testing';
import {
  orchestratorCall,
  publishStrategyYaml,
  rolloutEnded,
  ROLES,
  SEED_STRATEGY,
  startOrchestratorHub,
  type OrchestratorHub,
} from './support/orchestrator-hub';

const NODES = Object.values(ROLES).flat().sort();

interface HistoryEntry {
  event: string;
  version: string | null;
  fromVersion: string | null;
  rollback: boolean;
}

describe('strategy rollouts back to an older agent version', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let call: ReturnType<typeof orchestratorCall>;

  beforeAll(async () => {
    hub = await startOrchestratorHub(infra);
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    call = orchestratorCall(orchestrator.url);
    expect((await publishStrategyYaml(orchestrator.url, SEED_STRATEGY)).status).toBe(201);
  });

  afterAll(async () => {
    await orchestrator?.close();
    await hub?.close();
  });

  /** The agent version each node reports running, by node. */
  const running = async () =>
    Object.fromEntries(
      (
        (await hub.rollouts.call('GET', '/v1/orgs/acme/nodes')).body.items as {
          id: string;
          status: { agentVersion: { package: string } } | null;
        }[]
      ).map((node) => [node.id, node.status?.agentVersion.package]),
    );
  const everyNodeAt = (version: string) => Object.fromEntries(NODES.map((node) => [node, version]));

  it('takes the fleet to 2.0.0 first', async () => {
    const started = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '2.0.0' });
    expect([started.status, started.body.allow_downgrade]).toEqual([201, false]);
    expect((await rolloutEnded(call, started.body.id)).state).toBe('completed');
    await eventually(async () => expect(await running()).toEqual(everyNodeAt('2.0.0')));
  });

  it('refuses a rollout to 1.0.0 without allow_downgrade, naming every node and its version, and sends nothing', async () => {
    const refused = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '1.0.0' });
    expect(refused.status).toBe(409);
    expect(refused.body.details.code).toBe('orchestrator.downgrade-refused');
    expect(refused.body.message).toMatch(
      /^1\.0\.0 is below the agent version 9 node\(s\) of the rollout run: /,
    );
    expect(refused.body.message).toContain(`node "${ROLES.ntp[0]}" runs 2.0.0`);
    expect(refused.body.message).toContain('start it with allow_downgrade to take them down to it');
    expect(
      (refused.body.details.nodes as { node_id: string; running: string }[])
        .map((each) => [each.node_id, each.running])
        .sort(),
    ).toEqual(NODES.map((node) => [node, '2.0.0']));

    const notBoolean = await call('POST', '/v1/rollouts', {
      strategy: 'deployment-strategy',
      version: '1.0.0',
      allow_downgrade: 'yes',
    });
    expect([notBoolean.status, notBoolean.body.message]).toEqual([
      400,
      'invalid request: allow_downgrade: allow_downgrade must be true or false',
    ]);

    expect((await call('GET', '/v1/rollouts')).body.total).toBe(1);
    expect(await hub.policiesNamed('rollout-')).toEqual([]);
    expect(await running()).toEqual(everyNodeAt('2.0.0'));
  });

  it('takes every node down to 1.0.0 with allow_downgrade, each step in its history a rollback', async () => {
    const started = await call('POST', '/v1/rollouts', {
      strategy: 'deployment-strategy',
      version: '1.0.0',
      allow_downgrade: true,
    });
    expect([started.status, started.body.allow_downgrade]).toEqual([201, true]);
    const report = await rolloutEnded(call, started.body.id);
    expect([report.state, report.reason, report.counts]).toEqual([
      'completed',
      null,
      expect.objectContaining({ nodes: 9, success: 9 }),
    ]);
    await eventually(async () => expect(await running()).toEqual(everyNodeAt('1.0.0')));

    // Each agent installed 1.0.0 in the deploy phase: none found it had nothing to do.
    const prefix = `rollout-${String(started.body.id).slice(0, 8)}-`;
    const deployed = hub.timeline.filter(
      (entry) =>
        entry.nmp.startsWith(prefix) && entry.nmp.endsWith('-deploy') && entry.status === 'successful',
    );
    expect(deployed.map((entry) => [entry.node, entry.version]).sort()).toEqual(
      NODES.map((node) => [node, '1.0.0']),
    );
    expect(
      hub.timeline.filter((entry) => entry.nmp.startsWith(prefix) && entry.status === 'no-action-required'),
    ).toEqual([]);

    for (const node of NODES) {
      const history = (await hub.rollouts.call('GET', `/v1/orgs/acme/nodes/${node}/history`)).body
        .items as HistoryEntry[];
      const back = history.filter((entry) => entry.version === '1.0.0' && entry.fromVersion === '2.0.0');
      expect(back.map((entry) => entry.event)).toContain('successful');
      expect(back.every((entry) => entry.rollback)).toBe(true);
      expect(history.filter((entry) => entry.version === '2.0.0').some((entry) => entry.rollback)).toBe(
        false,
      );
    }
  });
});
