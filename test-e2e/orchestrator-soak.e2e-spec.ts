/**
 * The soak of an alert gate in a strategy rollout, on the real exchange, agbot, orchestrator and
 * a real Prometheus, with simulated agents: a node that reported its upgrade done shows
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

describe('a strategy rollout under an alert gate with a soak', () => {
  const infra = useTestInfra();
  let hub: OrchestratorHub;
  let orchestrator: InProcessService<DeploymentOrchestratorConfig>;
  let call: ReturnType<typeof orchestratorCall>;
  let prometheus: TestPrometheus;
  let metrics: Server;
  let ntpDown = 0;

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
      response.end(`careen_test_node_down{node="${NTP}"} ${ntpDown}\n`);
    });
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
    prometheus = await startTestPrometheus({
      rules: `groups:
  - name: careen-test
    rules:
      - alert: NodeDown
        expr: careen_test_node_down == 1
`,
      scrape: `127.0.0.1:${(metrics.address() as AddressInfo).port}`,
    });
    hub = await startOrchestratorHub(infra, { CAREEN_ALERT_GATE_PROMETHEUS_URLS: prometheus.url });
    orchestrator = await startServiceInProcess(deploymentOrchestratorService, infra, hub.orchestratorEnv);
    call = orchestratorCall(orchestrator.url);
    expect((await publishStrategyYaml(orchestrator.url, SEED_STRATEGY)).status).toBe(201);
    expect((await hub.publishPackage('3.0.0')).length).toBeGreaterThan(0);
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
    const soaking = await eventually(
      async () => {
        const seen = await report(started.body.id);
        expect(ntpOf(seen).status).toBe('soaking');
        return seen;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(soaking.groups.find((group) => group.name === 'control-nodes')!.phase).toBe('waiting');
    expect(ntpOf(soaking).error).toMatch(/^gate "soak" soaks the step until /);

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
});
