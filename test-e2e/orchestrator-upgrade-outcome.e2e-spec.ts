/**
 * A single-node upgrade's history tells what the node really did: success only once the node
 * reports the asked version, a version below the one it runs refused unless a downgrade is
 * allowed, and an allowed downgrade carried out by the agent (its policy says so) and kept as a
 * rollback once the node runs the lower version.
 */
import { type DeploymentOrchestratorConfig } from '@careen/deployment-orchestrator/src/deployment-orchestrator.config';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { eventually, useTestInfra } from '@careen/testing';
import { Client } from 'pg';
import {
  HUB_ROOT,
  orchestratorCall,
  ROLES,
  startOrchestratorHub,
  type OrchestratorHub,
} from './support/orchestrator-hub';

interface UpgradeRow {
  id: string;
  from_version: string | null;
  to_version: string;
  allow_downgrade: boolean;
  rollback: boolean;
  state: string;
  status: string | null;
  error: string | null;
  finished_at: string | null;
}

describe('single-node upgrade outcomes', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let call: ReturnType<typeof orchestratorCall>;
  const node = ROLES.monitoring[0]!;

  beforeAll(async () => {
    hub = await startOrchestratorHub(infra);
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    call = orchestratorCall(orchestrator.url);
  });

  afterAll(async () => {
    await orchestrator?.close();
    await hub?.close();
  });

  const finished = (id: string) =>
    eventually(
      async () => {
        const rows = (await call('GET', `/v1/upgrades?node_id=${node}`)).body.items as UpgradeRow[];
        const row = rows.find((each) => each.id === id)!;
        expect(row.finished_at).not.toBeNull();
        return row;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

  const upgrade = (body: Record<string, unknown>) =>
    call('POST', '/v1/upgrades', { node_id: node, strategy: 'tarball', ...body });

  const runs = async () =>
    (await hub.rollouts.call('GET', `/v1/orgs/acme/nodes/${node}`)).body.status?.agentVersion?.package;

  it('refuses a downgrade with the reason, and takes the node down to the version when it is allowed', async () => {
    const up = await upgrade({ version: '2.0.0' });
    expect(up.status).toBe(201);
    expect(await finished(up.body.id)).toMatchObject({ state: 'success', status: 'successful' });

    const refused = await upgrade({ version: '1.0.0' });
    expect([refused.status, refused.body.message]).toEqual([
      409,
      `node "${node}" runs agent 2.0.0: 1.0.0 would be a downgrade; ask again with allowDowngrade to mean it`,
    ]);
    const notBoolean = await upgrade({ version: '1.0.0', allowDowngrade: 'yes' });
    expect([notBoolean.status, notBoolean.body.message]).toEqual([
      400,
      expect.stringContaining('allowDowngrade must be true or false'),
    ]);

    // Refused: nothing was sent, and the node still runs 2.0.0.
    expect(await hub.policiesNamed('upgrade-')).toEqual([]);
    expect(await runs()).toBe('2.0.0');

    const allowed = await upgrade({ version: '1.0.0', allowDowngrade: true });
    expect(allowed.status).toBe(201);
    expect(allowed.body).toMatchObject({ allow_downgrade: true, rollback: true, state: 'pending' });
    expect(await finished(allowed.body.id)).toMatchObject({
      from_version: '2.0.0',
      to_version: '1.0.0',
      state: 'success',
      status: 'successful',
      error: null,
      rollback: true,
    });
    expect(await runs()).toBe('1.0.0');
    // The agent installed it: its own steps went from 2.0.0 down to 1.0.0.
    const steps = hub.timeline.filter((entry) => entry.nmp === allowed.body.policy);
    expect(steps.map((entry) => [entry.node, entry.status, entry.version])).toEqual(
      expect.arrayContaining([
        [node, 'initiated', '1.0.0'],
        [node, 'successful', '1.0.0'],
      ]),
    );
    const history = (await call('GET', `/v1/upgrades?node_id=${node}`)).body.items as UpgradeRow[];
    expect(history.map((row) => [row.from_version, row.to_version, row.state, row.rollback])).toEqual([
      ['2.0.0', '1.0.0', 'success', true],
      ['1.0.0', '2.0.0', 'success', false],
    ]);
  });

  it('counts a node already at the asked version as a success', async () => {
    const again = await upgrade({ version: '1.0.0' });
    expect(again.status).toBe(201);
    expect(await finished(again.body.id)).toMatchObject({
      state: 'success',
      status: 'no-action-required',
      error: null,
    });
  });

  it('ends an upgrade whose package went before it was sent as failed, saying why, and frees its node', async () => {
    // Holding the driver's leadership keeps the upgrade unsent while its package is removed.
    await orchestrator.close();
    const leader = new Client({ connectionString: infra.databaseUrl });
    await leader.connect();
    await leader.query(
      "SELECT pg_advisory_lock(hashtextextended('careen:deployment-orchestrator:driver', 0))",
    );
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    call = orchestratorCall(orchestrator.url);
    await hub.publishPackage('7.0.0');
    const asked = await upgrade({ version: '7.0.0' });
    expect(asked.status).toBe(201);
    expect((await hub.rollouts.call('DELETE', '/v1/agent-packages/7.0.0', undefined, HUB_ROOT)).status).toBe(
      204,
    );
    await leader.end();

    expect(await finished(asked.body.id)).toMatchObject({
      state: 'failed',
      error: expect.stringContaining(
        'the exchange refused it: agentUpgradePolicy.atLeastVersion: no agent package of version "7.0.0" is published',
      ),
    });
    expect((await upgrade({ version: '2.0.0' })).status).toBe(201);
  });
});
