/**
 * A Shipyard document gets Shipyard's reading and Shipyard's outcome, over HTTP on the real
 * exchange, agbot, orchestrator and simulated fleet: what Shipyard's schema accepts is accepted
 * (with warnings where it is suspicious) and what it refuses is refused; the plan names which
 * group sends each node, groups that choose nothing, selectors that add nothing and nodes
 * another management policy already upgrades; a rollout shows each node as its answer arrives,
 * and a cancel leaves the groups that had not started `cancelled`.
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
  startOrchestratorHub,
  type OrchestratorHub,
} from './support/orchestrator-hub';

interface GroupReport {
  name: string;
  phase: string;
  nodes: number;
  prepared: number;
  successful: number;
}

interface NodeReport {
  node: string;
  state: string;
  status: string | null;
  finished_at: string | null;
}

describe('Shipyard documents read and rolled as Shipyard does', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let call: ReturnType<typeof orchestratorCall>;

  beforeAll(async () => {
    hub = await startOrchestratorHub(infra);
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    call = orchestratorCall(orchestrator.url);
  });

  afterAll(async () => {
    await orchestrator?.close();
    await hub?.close();
  });

  const publishYaml = (text: string) => publishStrategyYaml(orchestrator.url, text);
  const ended = (id: string) => rolloutEnded(call, id);

  it("accepts what Shipyard's schema accepts with warnings, refuses what it refuses, and says a YAML error whole", async () => {
    const lenient = await publishYaml(`schema: shipyard/DeploymentStrategy/v1
metadata:
  name: lenient
data:
  groups:
    - name: control
      critical: true
      depends_on: []
      owner: ops-team
      selectors:
        - node_tags: []
        - node_tags: [control]
`);
    expect(lenient.status).toBe(201);
    expect(lenient.body.warnings).toEqual([
      { path: 'data.groups[0].owner', problem: expect.stringContaining('ignored') },
      {
        path: 'data.groups[0].selectors[0]',
        problem: expect.stringContaining('ignored beside other selectors'),
      },
    ]);
    const empty = await call('POST', '/v1/strategies', { name: 'nothing', groups: [] });
    expect([empty.status, empty.body.warnings]).toEqual([
      201,
      [{ path: 'groups', problem: 'no groups: a rollout of this strategy sends nothing' }],
    ]);

    const noCriteria = await call('POST', '/v1/strategies', {
      name: 'strict',
      groups: [{ name: 'a', critical: false, depends_on: [], selectors: [], success_criteria: {} }],
    });
    expect(noCriteria.status).toBe(400);
    expect(noCriteria.body.details.fields).toEqual([
      { field: 'groups[0].success_criteria', problems: [expect.stringContaining('at least one of')] },
    ]);

    const malformed = await publishYaml(`name: broken
groups:
  - name: a
    critical: true
  selectors: []
`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe(
      'malformed YAML body: All mapping items must start at the same column at line 5, column 1: "selectors: []"',
    );
  });

  it('plans which group sends each node, and warns of empty groups and nodes another policy upgrades', async () => {
    const published = await call('POST', '/v1/strategies', {
      name: 'overlap',
      groups: [
        {
          name: 'control',
          critical: true,
          depends_on: [],
          selectors: [{ node_tags: [] }, { node_tags: ['control'] }],
        },
        { name: 'rack03', critical: false, depends_on: [], selectors: [{ rack_names: ['rack03'] }] },
        { name: 'ghosts', critical: true, depends_on: [], selectors: [{ node_names: ['nowhere'] }] },
        {
          name: 'monitor',
          critical: false,
          depends_on: ['control'],
          selectors: [{ node_tags: ['monitoring'] }],
        },
      ],
    });
    expect(published.status).toBe(201);
    const leftover = await hub.rollouts.call('PUT', '/v1/orgs/acme/management-policies/leftover', {
      description: 'an upgrade left from before',
      enabled: true,
      nodes: ROLES.monitoring,
      agentUpgradePolicy: { atLeastVersion: '1.0.0', start: 'now' },
    });
    expect(leftover.status).toBeLessThan(300);

    const plan = await call('POST', '/v1/strategies/overlap/plan');
    expect(plan.status).toBe(200);
    const groups = Object.fromEntries(
      (plan.body.groups as { name: string; nodes: string[]; sends: string[] }[]).map((group) => [
        group.name,
        group,
      ]),
    );
    // The empty selector is dropped from the union: only the control nodes, not every node.
    expect(groups.control!.nodes).toEqual(ROLES.control);
    expect(groups.rack03).toMatchObject({ nodes: [ROLES.ntp[0], ...ROLES.control].sort(), sends: ROLES.ntp });
    expect(plan.body.overlapping).toEqual(
      ROLES.control.map((node) => ({ node, groups: ['control', 'rack03'], sent_by: 'control' })),
    );
    expect(plan.body.empty).toEqual(['ghosts']);
    expect(plan.body.warnings).toEqual([
      expect.stringMatching(/^group ghosts \(critical\) chooses no node/),
      expect.stringMatching(/^group control: selector 1 has no criteria and is ignored/),
      expect.stringMatching(
        new RegExp(
          `^1 node\\(s\\) already upgraded by management policy leftover.*: ${ROLES.monitoring[0]}; `,
        ),
      ),
    ]);

    const started = await call('POST', '/v1/rollouts', { strategy: 'overlap', version: '2.0.0' });
    expect(started.status).toBe(201);
    expect(started.body.warnings).toEqual(plan.body.warnings);
    await call('POST', `/v1/rollouts/${started.body.id}/cancel`);
    await ended(started.body.id);
    const removed = await hub.rollouts.call('DELETE', '/v1/orgs/acme/management-policies/leftover');
    expect(removed.status).toBeLessThan(300);
  });

  it('shows each node as its answer arrives, each with its own end time', async () => {
    // Whatever the test before left, so that no other policy holds a node here.
    await hub.rollouts.call('DELETE', '/v1/orgs/acme/management-policies/leftover');
    await eventually(async () => expect(await hub.policiesNamed('')).toEqual([]));
    const published = await call('POST', '/v1/strategies', {
      name: 'control-only',
      groups: [{ name: 'control', critical: true, depends_on: [], selectors: [{ node_tags: ['control'] }] }],
    });
    expect(published.status).toBe(201);
    const started = await call('POST', '/v1/rollouts', { strategy: 'control-only', version: '2.0.0' });
    expect(started.status).toBe(201);
    // The control nodes share an HA group, so they install one after another: while the group
    // is still deploying, some of them are already shown deployed.
    await eventually(
      async () => {
        const report = (await call('GET', `/v1/rollouts/${started.body.id}`)).body;
        const control = (report.groups as GroupReport[])[0]!;
        expect(control.phase).toBe('deploying');
        expect(control.successful).toBeGreaterThan(0);
        expect(control.successful).toBeLessThan(control.nodes);
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    const report = await ended(started.body.id);
    expect(report.state).toBe('completed');
    const ends = new Set((report.nodes as NodeReport[]).map((node) => node.finished_at));
    expect(ends.size).toBeGreaterThan(1);
  });

  it('leaves the groups that had not started cancelled, and no status of the removed policy', async () => {
    await hub.publishPackage('3.0.0');
    const published = await call('POST', '/v1/strategies', {
      name: 'two-steps',
      groups: [
        { name: 'first', critical: true, depends_on: [], selectors: [{ node_tags: ['compute'] }] },
        { name: 'second', critical: true, depends_on: ['first'], selectors: [{ node_tags: ['monitoring'] }] },
      ],
    });
    expect(published.status).toBe(201);
    const started = await call('POST', '/v1/rollouts', { strategy: 'two-steps', version: '3.0.0' });
    expect(started.status).toBe(201);
    // The cancel comes once the first group has been sent, and before the second could start.
    await eventually(
      async () => {
        const report = (await call('GET', `/v1/rollouts/${started.body.id}`)).body;
        expect((report.groups as GroupReport[])[0]!.phase).not.toBe('waiting');
      },
      { timeoutMs: 30_000, intervalMs: 10 },
    );
    expect((await call('POST', `/v1/rollouts/${started.body.id}/cancel`)).body.state).toBe('cancelling');
    const report = await ended(started.body.id);
    expect(report.state).toBe('cancelled');
    expect((report.groups as GroupReport[]).map((group) => [group.name, group.phase])).toEqual([
      ['first', 'failed'],
      ['second', 'cancelled'],
    ]);
    for (const node of report.nodes as NodeReport[])
      if (node.state === 'not started') expect(node.status).toBeNull();
  });
});
