/**
 * Alert gates in a strategy rollout, on the real exchange, agbot, orchestrator and a real
 * Prometheus, with simulated agents. An alert firing mid-rollout stops the next group's nodes
 * from starting, each saying why, and resolving it lets the rollout complete. The soak: a node that reported its upgrade done shows
 * `soaking` and counts as done only once the gate's soak of quiet is over, so the next strategy
 * group starts after it; an alert that fires for the node during its soak fails its step, and
 * with it its critical group and the rollout, until an admin ends the halt.
 */
import { type DeploymentOrchestratorConfig } from '@careen/deployment-orchestrator/src/deployment-orchestrator.config';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { eventually, http, startTestPrometheus, useTestInfra, type TestPrometheus } from '@careen/testing';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  ACME_ADMIN,
  orchestratorCall,
  publishStrategyYaml,
  rolloutEnded,
  ROLES,
  SEED_STRATEGY,
  startOrchestratorHub,
  type OrchestratorHub,
} from './support/orchestrator-hub';

const NTP = ROLES.ntp[0]!;
const SOAK_SECONDS = 4;

interface NodeReport {
  node: string;
  status: string | null;
  error: string | null;
}
interface GroupReport {
  name: string;
  phase: string;
  reason: string | null;
  started_at: string | null;
  finished_at: string | null;
}

describe('a strategy rollout under alert gates', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let call: ReturnType<typeof orchestratorCall>;
  let prometheus: TestPrometheus;
  let metrics: Server;
  let ntpDown = 0;
  let fleetDegraded = 0;

  const gate = (soakSeconds: number) =>
    hub.rollouts.call('PUT', '/v1/orgs/acme/gates/soak', {
      selector: { nodes: [NTP] },
      prometheusUrl: prometheus.url,
      matchers: ['alertname="NodeDown"'],
      scope: 'node',
      evaluationSeconds: 1,
      soakSeconds,
    });
  const report = async (id: string) =>
    (await call('GET', `/v1/rollouts/${id}`)).body as {
      state: string;
      nodes: NodeReport[];
      groups: GroupReport[];
    };
  const ntpOf = (seen: { nodes: NodeReport[] }) => seen.nodes.find((node) => node.node === NTP)!;

  beforeAll(async () => {
    metrics = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      response.end(
        `careen_test_node_down{node="${NTP}"} ${ntpDown}\ncareen_test_fleet_degraded ${fleetDegraded}\n`,
      );
    });
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
    prometheus = await startTestPrometheus({
      rules: `groups:
  - name: careen-test
    rules:
      - alert: NodeDown
        expr: careen_test_node_down == 1
      - alert: FleetDegraded
        expr: careen_test_fleet_degraded == 1
`,
      scrape: `127.0.0.1:${(metrics.address() as AddressInfo).port}`,
    });
    hub = await startOrchestratorHub(infra, { CAREEN_ALERT_GATE_PROMETHEUS_URLS: prometheus.url });
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    call = orchestratorCall(orchestrator.url);
    expect((await publishStrategyYaml(orchestrator.url, SEED_STRATEGY)).status).toBe(201);
    for (const version of ['3.0.0', '4.0.0', '5.0.0'])
      expect((await hub.publishPackage(version)).length).toBeGreaterThan(0);
  });

  afterAll(async () => {
    await orchestrator?.close();
    await hub?.close();
    await prometheus?.close();
    metrics?.close();
  });

  it('fails the step, its critical group and the rollout when an alert fires for the node during its soak', async () => {
    expect((await gate(60)).status).toBe(201);
    const started = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '2.0.0' });
    expect(started.status).toBe(201);
    await eventually(async () => expect(ntpOf(await report(started.body.id)).status).toBe('soaking'), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    ntpDown = 1;

    const ended = await rolloutEnded(call, started.body.id);
    expect(ended.state).toBe('failed');
    expect(ntpOf(ended)).toMatchObject({
      status: 'soak-failed',
      error: expect.stringMatching(
        /^soak-failed: alert "NodeDown" firing for .*during the 60 s soak of gate "soak"/,
      ),
    });
    expect((ended.groups as GroupReport[]).find((group) => group.name === 'ntp-node')!.phase).toBe('failed');
    expect(ended.reason).toContain('ntp-node');

    // The way out: the node repaired, an admin ends the halt of its HA group.
    ntpDown = 0;
    const reset = await http(
      hub.rollouts.agbot.url,
      'POST',
      '/v1/orgs/acme/upgrade-groups/sim-group-1/reset',
      {
        auth: ACME_ADMIN,
        body: { node: NTP },
      },
    );
    expect([reset.status, reset.body.total]).toEqual([200, 1]);
  });

  it('shows the node soaking and starts the next group only once its soak is over', async () => {
    expect((await gate(SOAK_SECONDS)).status).toBe(200);
    const started = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '3.0.0' });
    expect(started.status).toBe(201);
    // `soaking` from the node's report on; the soak's end once its slot is given back.
    const soaking = await eventually(
      async () => {
        const seen = await report(started.body.id);
        expect(ntpOf(seen).status).toBe('soaking');
        expect(ntpOf(seen).error).toMatch(/^gate "soak" soaks the step until /);
        return seen;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(soaking.groups.find((group) => group.name === 'control-nodes')!.phase).toBe('waiting');

    const ended = await rolloutEnded(call, started.body.id);
    expect(ended.state).toBe('completed');
    const prefix = `rollout-${String(started.body.id).slice(0, 8)}-`;
    const reported = hub.timeline.find(
      (entry) => entry.node === NTP && entry.nmp.startsWith(prefix) && entry.status === 'successful',
    )!;
    const control = (ended.groups as GroupReport[]).find((group) => group.name === 'control-nodes')!;
    // The soak counts from the agbot's release of the slot, a little after the report.
    expect(Date.parse(control.started_at!) - reported.at.getTime()).toBeGreaterThanOrEqual(
      SOAK_SECONDS * 1000,
    );
  });

  it('holds the next group while an alert fires mid-rollout, each node saying why, and goes on once it resolves', async () => {
    // A soak of the NTP node's step gives the alert its moment: mid-rollout, before the next group.
    expect((await gate(10)).status).toBe(200);
    expect(
      (
        await hub.rollouts.call('PUT', '/v1/orgs/acme/gates/health', {
          prometheusUrl: prometheus.url,
          matchers: ['alertname="FleetDegraded"'],
          scope: 'all',
          evaluationSeconds: 1,
        })
      ).status,
    ).toBe(201);
    const started = await call('POST', '/v1/rollouts', { strategy: 'deployment-strategy', version: '4.0.0' });
    expect(started.status).toBe(201);
    await eventually(async () => expect(ntpOf(await report(started.body.id)).status).toBe('soaking'), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    fleetDegraded = 1;
    await eventually(async () => expect(await firing('FleetDegraded')).toBe(true), { timeoutMs: 15_000 });

    // The control group is sent once the soak is over; its nodes ask and are refused.
    const waiting = await eventually(
      async () => {
        const seen = await report(started.body.id);
        const control = seen.nodes.filter((node) => ROLES.control.includes(node.node));
        expect(control.map((node) => node.status)).toEqual(['ha-waiting', 'ha-waiting', 'ha-waiting']);
        return control;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    for (const node of waiting) expect(node.error).toContain('alert "FleetDegraded" firing');
    const prefix = `rollout-${String(started.body.id).slice(0, 8)}-`;
    const installs = () =>
      hub.timeline.filter(
        (entry) =>
          ROLES.control.includes(entry.node) && entry.nmp.startsWith(prefix) && entry.status === 'initiated',
      );
    expect(installs()).toEqual([]);

    fleetDegraded = 0;
    const resolvedAt = Date.now();
    const ended = await rolloutEnded(call, started.body.id);
    expect(ended.state).toBe('completed');
    expect(installs()).toHaveLength(3);
    for (const entry of installs()) expect(entry.at.getTime()).toBeGreaterThan(resolvedAt);
  });

  it('fails a single-node upgrade whose soak an alert breaks, after showing it soaking', async () => {
    expect((await gate(20)).status).toBe(200);
    const asked = await call('POST', '/v1/upgrades', { node_id: NTP, version: '5.0.0', strategy: 'tarball' });
    expect(asked.status).toBe(201);
    const upgrade = async () =>
      (
        (await call('GET', '/v1/upgrades')).body.items as { id: string; state: string; status: string }[]
      ).find((each) => each.id === asked.body.id)!;
    await eventually(async () => expect((await upgrade()).status).toBe('soaking'), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    ntpDown = 1;
    const failed = await eventually(
      async () => {
        const seen = await upgrade();
        expect(seen.state).toBe('failed');
        return seen;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(failed).toMatchObject({
      status: 'soak-failed',
      error: expect.stringMatching(/^alert "NodeDown" firing for .*during the 20 s soak of gate "soak"/),
    });
    ntpDown = 0;
  });

  /** Whether Prometheus has the alert firing. */
  async function firing(name: string): Promise<boolean> {
    const answer = (await (await fetch(`${prometheus.url}/api/v1/alerts`)).json()) as {
      data: { alerts: { state: string; labels: Record<string, string> }[] };
    };
    return answer.data.alerts.some((alert) => alert.state === 'firing' && alert.labels['alertname'] === name);
  }
});
