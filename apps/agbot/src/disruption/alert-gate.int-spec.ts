/**
 * The Prometheus alert gate against a real Prometheus server (invariant 9): a metric the test
 * sets fires an alert by a rule, and the agbot's gate stops new disruptions of the node the
 * alert names within one evaluation, lets them go once it resolves, and is closed while
 * Prometheus cannot be asked unless the gate says open.
 */
import { eventually, http, startTestPrometheus, useTestInfra, type TestPrometheus } from '@careen/testing';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { UpgradeHub } from '../upgrades/upgrades.fixtures';

const RULES = `groups:
  - name: careen-test
    rules:
      - alert: NodeDown
        expr: careen_test_node_down == 1
        labels: { severity: page }
`;

describe('the Prometheus alert gate', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  let prometheus: TestPrometheus;
  let metrics: Server;
  /** What the test's /metrics says of edge-1. */
  let nodeDown = 0;

  const upgrade = async (node: string) =>
    http(hub.agbots[0]!.url, 'POST', `/v1/orgs/acme/nodes/${node}/upgrade`, {
      auth: await hub.nodeToken('acme', node),
      body: { managementPolicy: 'agents-2' },
    });
  const release = async (node: string) =>
    http(hub.agbots[0]!.url, 'DELETE', `/v1/orgs/acme/nodes/${node}/upgrade`, {
      auth: await hub.nodeToken('acme', node),
    });
  /** Asks for the node's slot and gives it back when granted: a holder's ask would only renew it. */
  const tryUpgrade = async (node: string) => {
    const answer = await upgrade(node);
    if (answer.status === 200) await release(node);
    return answer;
  };
  const gate = (overrides: Record<string, unknown> = {}) =>
    hub.seedResource('acme', 'gate', 'node-down', {
      prometheusUrl: prometheus.url,
      matchers: ['alertname="NodeDown"', 'severity=~"page|critical"'],
      scope: 'node',
      evaluationSeconds: 1,
      ...overrides,
    });
  const firing = async () =>
    (
      (await (await fetch(`${prometheus.url}/api/v1/alerts`)).json()) as {
        data: { alerts: { state: string }[] };
      }
    ).data.alerts.filter((alert) => alert.state === 'firing').length;

  beforeAll(async () => {
    metrics = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      response.end(`careen_test_node_down{node="edge-1"} ${nodeDown}\n`);
    });
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
    prometheus = await startTestPrometheus({
      rules: RULES,
      scrape: `127.0.0.1:${(metrics.address() as AddressInfo).port}`,
    });
    hub = await UpgradeHub.start(infra);
    await hub.startAgbot({ CAREEN_ALERT_GATE_PROMETHEUS_URLS: `http://elsewhere:9090, ${prometheus.url}/` });
    await hub.seedManagementPolicy('acme', 'agents-2', { enabled: true });
    await hub.seedNode('acme', 'edge-1', { haGroup: null });
    await hub.seedNode('acme', 'edge-2', { haGroup: null });
    await gate();
  });

  afterAll(async () => {
    await hub?.close();
    await prometheus?.close();
    metrics?.close();
  });

  it('stops new disruptions of the node an alert names within one evaluation, and lets them go once it resolves', async () => {
    await eventually(async () => expect((await upgrade('edge-1')).status).toBe(200));
    await release('edge-1');

    nodeDown = 1;
    await eventually(async () => expect(await firing()).toBe(1), { timeoutMs: 15_000 });
    const firedAt = Date.now();
    const refused = await eventually(async () => {
      const answer = await tryUpgrade('edge-1');
      expect(answer.status).toBe(409);
      return answer;
    });
    // One evaluation of the gate (1 s), and the agbot's tick that asks when it is due.
    expect(Date.now() - firedAt).toBeLessThan(2_500);
    expect(refused.body.details).toMatchObject({
      code: 'DISRUPTION_GATED',
      reason: 'gate',
      control: 'node-down',
    });
    expect(refused.body.message).toContain('alert "NodeDown" firing for');
    expect(refused.body.message).toContain('node=edge-1');
    // The alert names edge-1 only.
    expect((await upgrade('edge-2')).status).toBe(200);
    await release('edge-2');
    expect(
      (
        await http(hub.agbots[0]!.url, 'GET', '/v1/orgs/acme/nodes/edge-1/disruption', {
          auth: await hub.nodeToken('acme', 'edge-1'),
        })
      ).body,
    ).toMatchObject({ mayStart: false, refusal: { reason: 'gate', control: 'node-down' } });

    nodeDown = 0;
    await eventually(async () => expect((await upgrade('edge-1')).status).toBe(200), { timeoutMs: 15_000 });
    await release('edge-1');
  });

  it('is closed while Prometheus cannot be asked, unless the gate says open', async () => {
    await prometheus.stop();
    const refused = await eventually(async () => {
      const answer = await tryUpgrade('edge-2');
      expect(answer.status).toBe(409);
      return answer;
    });
    expect(refused.body.message).toContain(
      `gate "node-down" is closed: Prometheus at ${prometheus.url} cannot be asked`,
    );

    await gate({ onUnavailable: 'open' });
    expect((await upgrade('edge-2')).status).toBe(200);
    await release('edge-2');
    await gate();
    await prometheus.start();
    await eventually(async () => expect((await upgrade('edge-2')).status).toBe(200), { timeoutMs: 15_000 });
    await release('edge-2');
  });

  it('never asks a Prometheus the hub has not listed', async () => {
    await gate({ prometheusUrl: 'http://169.254.169.254/latest' });
    await eventually(async () => {
      const answer = await tryUpgrade('edge-2');
      expect(answer.status).toBe(409);
      expect(answer.body.message).toContain(
        'not one of the servers CAREEN_ALERT_GATE_PROMETHEUS_URLS lets the agbot ask',
      );
    });
    await gate();
    await eventually(async () => expect((await tryUpgrade('edge-2')).status).toBe(200));
  });
});
