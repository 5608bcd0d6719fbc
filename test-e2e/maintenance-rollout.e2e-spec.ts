/**
 * One semaphore for every kind of disruption: a maintenance session and an agent-upgrade
 * rollout over the same HA groups at once, on the real exchange, agbot and maintenance service,
 * with simulated agents. From the agents' own timeline and the session's, no group ever has two
 * members down at once, and both finish.
 */
import { startSimulatedFleet, type SimulatedFleet } from '@careen/agent/src/index';
import { buildPackage } from '@careen/agent/src/testing/agent-package.fixture';
import { type MaintenanceSessionConfig } from '@careen/maintenance-session/src/maintenance-session.config';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { eventually, http, seededRandom, useTestInfra } from '@careen/testing';
import { maintenanceSpans, overlapsWithinGroups, upgradeSpans } from './support/down-spans';
import { ACME_ADMIN, HUB_ROOT, ORG_ADMIN, startRolloutHub, type RolloutHub } from './support/rollout-hub';

describe('a maintenance session and an agent rollout over the same HA groups', () => {
  const infra = useTestInfra();
  let hub: RolloutHub;
  let maintenance: InProcessService<MaintenanceSessionConfig>;
  let fleet: SimulatedFleet;

  beforeAll(async () => {
    hub = await startRolloutHub(infra);
    fleet = await startSimulatedFleet({
      exchangeUrl: hub.exchange.url,
      agbotUrl: hub.agbot.url,
      org: 'acme',
      admin: ORG_ADMIN,
      nodes: 6,
      haGroups: 2,
      initialVersion: '1.0.0',
      installSeconds: 0.4,
      pollSeconds: 1,
      random: seededRandom(11),
      logger: createLogger('maintenance-rollout', { level: 'error' }),
    });
    infra.track(() => fleet.stop());
    maintenance = await startServiceInProcess(maintenanceSessionService, infra, {
      CAREEN_EXCHANGE_URL: hub.exchange.url,
      CAREEN_AGBOT_URL: hub.agbot.url,
      CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: 'root-password-1',
      CAREEN_MAINTENANCE_TICK_MS: '50',
    });
  });

  /** The session once it is done. */
  const sessionDone = (id: string) =>
    eventually(
      async () => {
        const answer = (await http(maintenance.url, 'GET', `/v1/maintenance/${id}`, { auth: ACME_ADMIN }))
          .body;
        expect(answer.state).toBe('MAINTENANCE_DONE');
        return answer;
      },
      { timeoutMs: 60_000 },
    );

  afterAll(async () => {
    await maintenance?.close();
    await hub?.close();
  });

  it('never takes two members of a group down at once, whichever feature asks', async () => {
    const nodes = fleet.agents.map((agent) => agent.node);
    const started = await http(maintenance.url, 'POST', '/v1/maintenance', {
      auth: ACME_ADMIN,
      body: { hosts: nodes, host_action: { kind: 'simulated', seconds: 1 }, max_parallel_hosts: 6 },
    });
    expect(started.status).toBe(201);
    const rollout = await hub.call('PUT', '/v1/orgs/acme/management-policies/to-2', {
      enabled: true,
      nodes,
      agentUpgradePolicy: { atLeastVersion: '2.0.0', start: 'now' },
    });
    expect(rollout.status).toBe(201);

    const session = await sessionDone(started.body.session_id);
    await eventually(() => expect(fleet.versions()).toEqual({ '2.0.0': 6 }), { timeoutMs: 60_000 });

    // Each member's time down: an agent upgrade from `initiated` to `successful`, a
    // maintenance from IN_MAINTENANCE to MAINTENANCE_COMPLETE.
    const spans = [...upgradeSpans(fleet.timeline), ...maintenanceSpans(session.timeline)];
    expect(spans.filter((span) => span.what === 'upgrade')).toHaveLength(6);
    expect(spans.filter((span) => span.what === 'maintenance')).toHaveLength(6);
    const overlaps = overlapsWithinGroups(
      spans,
      new Map(fleet.agents.map((agent) => [agent.node, agent.haGroup])),
    );
    expect(overlaps).toEqual([]);
  });

  it("rolls each host's agent as its host action, one member of a group at a time", async () => {
    const published = await http(hub.exchange.url, 'POST', '/v1/agent-packages', {
      auth: HUB_ROOT,
      rawBody: await buildPackage({ version: '3.0.0' }),
      headers: { 'content-type': 'application/gzip' },
    });
    expect(published.status).toBe(201);
    // Another policy still naming the nodes would be a conflict for their agents (one policy at a time).
    expect((await hub.call('DELETE', '/v1/orgs/acme/management-policies/to-2')).status).toBe(200);
    const group = fleet.agents
      .filter((agent) => agent.haGroup === fleet.agents[0]!.haGroup)
      .map((agent) => agent.node);
    const started = await http(maintenance.url, 'POST', '/v1/maintenance', {
      auth: ACME_ADMIN,
      body: { hosts: group, host_action: { kind: 'agent-upgrade', version: '3.0.0' }, max_parallel_hosts: 3 },
    });
    expect(started.status).toBe(201);
    const session = await sessionDone(started.body.session_id);
    for (const agent of fleet.agents.filter((each) => group.includes(each.node)))
      expect(agent.core.version).toBe('3.0.0');
    expect(fleet.versions()).toEqual({ '2.0.0': 3, '3.0.0': 3 });
    const outcomes = (session.timeline as { kind: string; host: string; detail: { status?: string } }[])
      .filter((entry) => entry.kind === 'note' && entry.detail.status)
      .map((entry) => `${entry.host} ${entry.detail.status}`);
    expect(outcomes.sort()).toEqual(group.map((node) => `${node} successful`).sort());
    // One host at a time: each entered maintenance after the one before it came out.
    const sent = (
      session.timeline as { kind: string; host: string | null; state: string; at: string }[]
    ).filter((entry) => entry.kind === 'sent' && entry.host);
    expect(sent.map((entry) => entry.state)).toEqual(
      group.flatMap(() => ['IN_MAINTENANCE', 'MAINTENANCE_COMPLETE']),
    );
  });
});
