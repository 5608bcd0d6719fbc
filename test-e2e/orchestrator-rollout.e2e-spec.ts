/**
 * Shipyard's example deployment strategy rolled through a simulated fleet laid out as its example, on the
 * real exchange, agbot and orchestrator: from the agents' own timeline every group starts only
 * after the groups it depends on succeeded (invariant 6), one group runs at a time, no HA group
 * has two members installing at once, and no node is asked twice for a phase; the order is one
 * the seed allows; a failing critical group fails its dependents and the rollout; steering and
 * bad input are refused clearly with nothing changed.
 */
import { type TimelineEntry } from '@careen/agent/src/index';
import { connectBus, type BusConnection } from '@careen/bus';
import { type DeploymentOrchestratorConfig } from '@careen/deployment-orchestrator/src/deployment-orchestrator.config';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { eventually, readStream, useTestInfra } from '@careen/testing';
import {
  orchestratorCall,
  publishStrategyYaml,
  rolloutEnded,
  ROLES,
  SEED_STRATEGY,
  startOrchestratorHub,
  type OrchestratorHub,
} from './support/orchestrator-hub';

interface GroupReport {
  name: string;
  phase: string;
  reason: string | null;
}

describe('deployment strategies rolled through the fleet', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let bus: BusConnection;
  let call: ReturnType<typeof orchestratorCall>;

  beforeAll(async () => {
    hub = await startOrchestratorHub(infra);
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    call = orchestratorCall(orchestrator.url);
    bus = await connectBus({ url: infra.natsUrl, name: 'orchestrator-test' });
  });

  afterAll(async () => {
    await bus?.close();
    await orchestrator?.close();
    await hub?.close();
  });

  const publishYaml = (text: string) => publishStrategyYaml(orchestrator.url, text);
  const ended = (id: string) => rolloutEnded(call, id);

  /** The agents' status steps for the policies of one rollout, by group index and phase. */
  const stepsOf = (id: string) => {
    const prefix = `rollout-${id.slice(0, 8)}-`;
    return hub.timeline
      .filter((entry) => entry.nmp.startsWith(prefix))
      .map((entry) => {
        const [index, phase] = entry.nmp.slice(prefix.length).split('-') as [string, string];
        return { ...entry, index: Number(index), phase };
      });
  };

  it("plans and rolls Shipyard's example strategy, keeping every dependency, one group and one HA-group member at a time", async () => {
    const published = await publishYaml(SEED_STRATEGY);
    expect([published.status, published.body.version, published.body.created]).toEqual([201, 1, true]);
    expect(published.body.stages).toEqual([
      ['monitoring-nodes', 'ntp-node'],
      ['control-nodes'],
      ['compute-nodes-1', 'compute-nodes-2'],
    ]);
    expect((await publishYaml(SEED_STRATEGY)).body).toMatchObject({ version: 1, created: false });

    const plan = await call('POST', '/v1/strategies/deployment-strategy/plan');
    expect(plan.status).toBe(200);
    const planned = Object.fromEntries(
      (plan.body.groups as { name: string; nodes: string[]; ha_groups: string[] }[]).map((group) => [
        group.name,
        group,
      ]),
    );
    expect(planned['ntp-node']!.nodes).toEqual(ROLES.ntp);
    expect(planned['control-nodes']).toMatchObject({ nodes: ROLES.control, ha_groups: ['sim-group-2'] });
    expect(planned['compute-nodes-1']!.nodes).toEqual(ROLES.compute1);
    expect(planned['compute-nodes-2']!.nodes).toEqual(ROLES.compute2);
    expect(planned['monitoring-nodes']!.nodes).toEqual(ROLES.monitoring);
    expect(plan.body).toMatchObject({ overlapping: [], unselected: [] });

    const started = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '2.0.0' });
    expect([started.status, started.body.state]).toEqual([201, 'running']);
    const id = started.body.id as string;
    const report = await ended(id);
    expect([report.state, report.reason]).toEqual(['completed', null]);
    expect((report.groups as GroupReport[]).every((group) => group.phase === 'succeeded')).toBe(true);
    expect(report.counts).toMatchObject({ nodes: 9, success: 9 });
    await eventually(async () => {
      const nodes = (await hub.rollouts.call('GET', '/v1/orgs/acme/nodes')).body.items;
      expect(
        nodes.map(
          (node: { status: { agentVersion: { package: string } } }) => node.status.agentVersion.package,
        ),
      ).toEqual(Array(9).fill('2.0.0'));
    });

    const steps = stepsOf(id);
    const groups = started.body.groups as { name: string; depends_on: string[] }[];
    const indexOf = new Map(groups.map((group, index) => [group.name, index]));
    const span = (index: number) => {
      const times = steps.filter((step) => step.index === index).map((step) => step.at.getTime());
      return { from: Math.min(...times), to: Math.max(...times) };
    };
    // Invariant 6: a group's first step comes after the last step of every group it depends on.
    for (const group of groups)
      for (const dependency of group.depends_on)
        expect(span(indexOf.get(group.name)!).from).toBeGreaterThanOrEqual(span(indexOf.get(dependency)!).to);
    // One group at a time, in an order the seed allows.
    const order = [...indexOf.values()].sort((a, b) => span(a).from - span(b).from);
    for (let at = 1; at < order.length; at++)
      expect(span(order[at]!).from).toBeGreaterThanOrEqual(span(order[at - 1]!).to);
    const names = order.map((index) => groups[index]!.name);
    expect(names.indexOf('ntp-node')).toBeLessThan(names.indexOf('control-nodes'));
    expect(names.indexOf('control-nodes')).toBeLessThan(names.indexOf('compute-nodes-1'));
    expect(names.indexOf('control-nodes')).toBeLessThan(names.indexOf('compute-nodes-2'));
    // Each node asked once per phase: one download started per node and phase.
    for (const phase of ['prepare', 'deploy'])
      for (const agent of hub.fleet.agents)
        expect(
          steps.filter(
            (step) => step.phase === phase && step.node === agent.node && step.status === 'downloading',
          ),
        ).toHaveLength(1);
    expectOneInstallPerHaGroup(steps);
    // No policy left behind.
    await eventually(async () => expect(await hub.policiesNamed('rollout-')).toEqual([]));
    const metrics = await (await fetch(`${orchestrator.url}/metrics`)).text();
    expect(metrics).toMatch(/^careen_orchestrator_rollouts\{[^}]*state="completed"[^}]*\} 1$/m);
    expect(metrics).toMatch(
      /^careen_orchestrator_phase_duration_seconds_count\{[^}]*phase="deploy"[^}]*\} 5$/m,
    );
    // The bus tells the same story.
    const events = await readStream(bus, 'CAREEN_ORCHESTRATOR', { count: 5 * 3 + 2 });
    expect(
      events
        .filter((event) => event.subject === 'careen.orchestrator.group.started')
        .map((event) => event.body.group),
    ).toEqual(names);
    expect(events.at(-1)).toMatchObject({
      subject: 'careen.orchestrator.rollout.completed',
      headers: { 'ce-type': 'careen.orchestrator.rollout' },
      body: { rollout_id: id, strategy: 'deployment-strategy', strategy_version: 1, version: '2.0.0' },
    });
  });

  it('fails the dependents of a failed critical group and then the rollout, naming every failed node', async () => {
    await hub.publishPackage('3.0.0');
    hub.failing.set(ROLES.ntp[0]!, new Set(['3.0.0']));
    const started = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '3.0.0' });
    expect(started.status).toBe(201);
    const report = await ended(started.body.id);
    expect([report.state, report.reason]).toEqual([
      'failed',
      'critical group(s) failed: control-nodes, ntp-node',
    ]);
    const group = (name: string) => (report.groups as GroupReport[]).find((each) => each.name === name)!;
    expect(group('ntp-node')).toMatchObject({
      phase: 'failed',
      reason: 'deploy did not meet the success criteria: 0 node(s) succeeded, 1 needed',
    });
    for (const name of ['control-nodes', 'compute-nodes-1', 'compute-nodes-2'])
      expect(group(name).reason).toMatch(/^due to dependency: group "(ntp-node|control-nodes)" failed$/);
    expect(group('monitoring-nodes').phase).toBe('succeeded');
    const nodes = report.nodes as { node: string; state: string; error: string | null }[];
    expect(nodes.filter((node) => node.state === 'failure')).toEqual([
      expect.objectContaining({ node: ROLES.ntp[0], error: expect.stringMatching(/^rolled-back: /) }),
    ]);
    expect(
      nodes
        .filter((node) => node.state === 'not started')
        .map((node) => node.node)
        .sort(),
    ).toEqual([...ROLES.control, ...ROLES.compute1, ...ROLES.compute2].sort());
    expectOneInstallPerHaGroup(stepsOf(started.body.id));
  });

  it('refuses bad strategies with every problem named, and steering that does not fit, changing nothing', async () => {
    const malformed = await publishYaml('data: [unclosed');
    expect([malformed.status, malformed.body.message]).toEqual([
      400,
      'malformed YAML body: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 16: "data: [unclosed"',
    ]);
    const cyclic = await call('POST', '/v1/strategies', {
      name: 'loop',
      groups: [
        { name: 'a', critical: true, depends_on: ['b'], selectors: [] },
        {
          name: 'b',
          critical: true,
          depends_on: ['a'],
          selectors: [],
          success_criteria: { percent_successful_nodes: 101 },
        },
        { name: 'c', depends_on: ['z'], selectors: [] },
      ],
    });
    expect(cyclic.status).toBe(400);
    expect(cyclic.body.details.fields).toEqual([
      {
        field: 'groups[1].success_criteria.percent_successful_nodes',
        problems: ['must be a whole number from 0 to 100'],
      },
      { field: 'groups[2].critical', problems: ['required: true or false'] },
      { field: 'groups[2].depends_on[0]', problems: ['unknown group "z"'] },
      { field: 'groups', problems: ['dependency cycle: a → b → a (each depends on the next)'] },
    ]);
    expect((await call('GET', '/v1/strategies/loop')).status).toBe(404);

    const unknownStrategy = await call('POST', '/v1/rollouts', { strategy: 'nope', version: '2.0.0' });
    expect([unknownStrategy.status, unknownStrategy.body.message]).toEqual([400, 'no strategy "nope"']);
    const unknownVersion = await call('POST', '/v1/rollouts', {
      strategy: 'deployment-strategy',
      version: '9.9.9',
    });
    expect([unknownVersion.status, unknownVersion.body.message]).toEqual([
      400,
      'no agent package of version "9.9.9" in the exchange',
    ]);
    const badFields = await call('POST', '/v1/rollouts', {
      strategy: 'deployment-strategy',
      version: 'latest',
      colour: 1,
    });
    expect(badFields.status).toBe(400);
    expect(badFields.body.message).toContain('version must be a semantic version');
    expect(badFields.body.message).toContain('colour');

    // A rollout held at its first phase, then a second over the same nodes, then a cancel.
    await hub.publishPackage('4.0.0');
    const first = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '4.0.0' });
    expect((await call('POST', `/v1/rollouts/${first.body.id}/pause`)).body.state).toBe('paused');
    const second = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '4.0.0' });
    expect(second.status).toBe(409);
    expect(second.body.message).toContain(`is in rollout ${first.body.id}`);
    expect((await call('GET', '/v1/rollouts')).body.total).toBe(3);
    // A changed strategy is a new version; the rollout under way keeps the one it started with.
    const changed = await publishYaml(
      SEED_STRATEGY.replace('percent_successful_nodes: 90', 'percent_successful_nodes: 60'),
    );
    expect([changed.status, changed.body.version]).toEqual([201, 2]);
    expect((await call('GET', `/v1/rollouts/${first.body.id}`)).body.strategy_version).toBe(1);
    expect(
      (await call('GET', '/v1/strategies/deployment-strategy?version=1')).body.groups[0].success_criteria,
    ).toEqual({
      percent_successful_nodes: 90,
      minimum_successful_nodes: 3,
      maximum_failed_nodes: 1,
    });
    const huge = await publishYaml(`name: huge\n# ${'x'.repeat(1_100_000)}\ngroups: []\n`);
    expect([huge.status, huge.body.message]).toEqual([413, 'request body exceeds the 1mb limit']);
    expect((await call('POST', `/v1/rollouts/${first.body.id}/resume`)).body.state).toBe('running');
    expect((await call('POST', `/v1/rollouts/${first.body.id}/cancel`)).body.state).toBe('cancelling');
    const cancelled = await ended(first.body.id);
    expect(cancelled.state).toBe('cancelled');
    const pausedAfter = await call('POST', `/v1/rollouts/${first.body.id}/pause`);
    expect([pausedAfter.status, pausedAfter.body.message]).toEqual([
      409,
      `rollout ${first.body.id} is cancelled: cannot pause it`,
    ]);
    await eventually(async () => expect(await hub.policiesNamed('rollout-')).toEqual([]));
    expect((await call('GET', '/v1/rollouts/6d7f0c2e-3a1b-4c5d-8e9f-0a1b2c3d4e5f')).status).toBe(404);
  });
});

/** From the agents' timeline: no two members of an HA group between `initiated` and the end of their install. */
function expectOneInstallPerHaGroup(steps: readonly TimelineEntry[]): void {
  const spans: { node: string; group: string; from: number; to: number }[] = [];
  for (const step of steps) {
    if (!step.haGroup || step.status !== 'initiated') continue;
    const end = steps.find(
      (later) =>
        later.node === step.node &&
        later.nmp === step.nmp &&
        later.at >= step.at &&
        ['successful', 'rolled-back', 'rollback-failed'].includes(later.status),
    );
    spans.push({
      node: step.node,
      group: step.haGroup,
      from: step.at.getTime(),
      to: end?.at.getTime() ?? Infinity,
    });
  }
  for (const one of spans)
    for (const other of spans)
      if (one !== other && one.group === other.group)
        expect(one.to <= other.from || other.to <= one.from).toBe(true);
}
