/**
 * The soak of an alert gate against a real Prometheus (invariant 9): after a member's step ends,
 * the next member of its group starts only after the gate's soak of quiet, and an alert that
 * fires for the member during the soak fails its step: the member halts the group until an admin
 * resets it.
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
`;

describe('the soak of an alert gate', () => {
  const infra = useTestInfra();
  let hub: UpgradeHub;
  let prometheus: TestPrometheus;
  let metrics: Server;
  /** The nodes the test's /metrics says are down. */
  const down = new Set<string>();

  const agbot = () => hub.agbots[0]!.url;
  const upgrade = async (node: string, wait = 0) =>
    http(agbot(), 'POST', `/v1/orgs/acme/nodes/${node}/upgrade?wait=${wait}`, {
      auth: await hub.nodeToken('acme', node),
      body: { managementPolicy: 'agents-2' },
    });
  const release = async (node: string) =>
    http(agbot(), 'DELETE', `/v1/orgs/acme/nodes/${node}/upgrade`, {
      auth: await hub.nodeToken('acme', node),
    });
  const admin = () => hub.userToken('acme', 'admin', 'orgAdmin');
  const soaks = async () =>
    (await http(agbot(), 'GET', '/v1/orgs/acme/soaks', { auth: await admin() })).body as {
      items: { node: string; state: string; until?: string; error?: string }[];
    };
  const gate = (soakSeconds: number) =>
    hub.seedResource('acme', 'gate', 'soak', {
      prometheusUrl: prometheus.url,
      matchers: ['alertname="NodeDown"'],
      scope: 'haGroup',
      evaluationSeconds: 1,
      soakSeconds,
    });

  beforeAll(async () => {
    metrics = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      response.end(
        ['a', 'b', 'c']
          .map((node) => `careen_test_node_down{node="${node}",ha_group="g1"} ${down.has(node) ? 1 : 0}\n`)
          .join(''),
      );
    });
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
    prometheus = await startTestPrometheus({
      rules: RULES,
      scrape: `127.0.0.1:${(metrics.address() as AddressInfo).port}`,
    });
    hub = await UpgradeHub.start(infra);
    await hub.startAgbot({ CAREEN_ALERT_GATE_PROMETHEUS_URLS: prometheus.url });
    await hub.seedManagementPolicy('acme', 'agents-2', { enabled: true });
    await hub.seedNodes('acme', { a: 'g1', b: 'g1', c: 'g1' });
  });

  afterAll(async () => {
    await hub?.close();
    await prometheus?.close();
    metrics?.close();
  });

  it('starts the next member of the group only after the soak of quiet that follows a step', async () => {
    await gate(3);
    const granted = await eventually(async () => {
      const answer = await upgrade('a');
      expect(answer.status).toBe(200);
      return answer;
    });
    expect(granted.status).toBe(200);
    expect((await upgrade('b')).status).toBe(409);
    expect((await release('a')).status).toBe(204);
    const releasedAt = Date.now();

    const refused = await upgrade('b');
    expect(refused.status).toBe(409);
    expect(refused.body.details).toMatchObject({
      code: 'DISRUPTION_GATED',
      reason: 'soak',
      control: 'soak',
      soaking: 'a',
      retryAt: expect.any(String),
    });
    expect(refused.body.message).toContain('waits 3 s of quiet');
    expect((await soaks()).items).toEqual([
      { node: 'a', state: 'soaking', gate: 'soak', until: refused.body.details.retryAt },
    ]);

    // Waiting, b is granted once the soak is over, not before.
    const waited = await upgrade('b', 10);
    expect(waited.status).toBe(200);
    expect(Date.now() - releasedAt).toBeGreaterThanOrEqual(2_500);
    expect(Date.parse(waited.body.grantedAt)).toBeGreaterThanOrEqual(
      Date.parse(refused.body.details.retryAt),
    );
    expect((await soaks()).items).toEqual([{ node: 'b', state: 'held' }]);
    expect((await release('b')).status).toBe(204);
  });

  it('fails a step whose alert fires during its soak: the member halts the group until reset', async () => {
    await gate(60);
    // b's step of the last test would soak for this gate's minute too: it ended an hour ago.
    await hub.dataSource.query(
      "UPDATE agbot.upgrade_grant_history SET at = at - interval '1 hour' WHERE org = 'acme'",
    );
    expect((await upgrade('c')).status).toBe(200);
    expect((await release('c')).status).toBe(204);
    expect((await upgrade('a')).body.details).toMatchObject({ reason: 'soak', soaking: 'c' });

    down.add('c');
    const halted = await eventually(
      async () => {
        const { items } = await soaks();
        expect(items).toEqual([{ node: 'c', state: 'soak-failed', error: expect.any(String) }]);
        return items[0]!;
      },
      { timeoutMs: 20_000 },
    );
    expect(halted.error).toMatch(
      /^alert "NodeDown" firing for .*node=c.* during the 60 s soak of gate "soak" after the step$/,
    );
    const blocked = await upgrade('a');
    expect(blocked.status).toBe(409);
    expect(blocked.body.details).toMatchObject({ code: 'UPGRADE_GROUP_BUSY' });
    expect(blocked.body.details.holder).toMatchObject({ node: 'c', halted: true, error: halted.error });
    expect(blocked.body.message).toContain('node "c" failed its step and is not healthy again (alert');
    expect(await hub.history('acme', 'c')).toContainEqual({ event: 'halted', reason: halted.error });

    // The way out: an admin resets the group once c is repaired; a reset starts no soak.
    down.delete('c');
    const reset = await http(agbot(), 'POST', '/v1/orgs/acme/upgrade-groups/g1/reset', {
      auth: await admin(),
      body: {},
    });
    expect(reset.status).toBe(200);
    expect(reset.body.total).toBe(1);
    // Once the alert has resolved (it closed the gate for the whole group meanwhile).
    await eventually(async () => expect((await upgrade('a')).status).toBe(200), { timeoutMs: 20_000 });
    expect((await release('a')).status).toBe(204);
  });
});
