/**
 * Faults between agents and the exchange, injected by a TCP proxy on their way, one kind at a
 * time: a partition while a management policy is published, a slow link, and connections
 * reset in the middle of the upgrades. The agents catch up once they can, every one reaches
 * the new version, and no two members of an HA group are ever down at once. An agent whose
 * read of its new workloads is cut off reads them again.
 */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { startSimulatedFleet, type SimulatedFleet } from '@careen/agent/src/index';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService, type ServiceConfig } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { basic, eventually, http, startTcpProxy, useTestInfra, type TcpProxy } from '@careen/testing';
import { publishAgentPackage } from './support/agent-packages';
import { overlapsWithinGroups, upgradeSpans } from './support/down-spans';

const ROOT_PASSWORD = 'agent-faults-root-password';
const ROOT = basic('root', 'root', ROOT_PASSWORD);
const NODES = 6;
const GROUPS = 2;
/**
 * Each policy's window: the agents' starts spread over it, and each rollout waits it out. Short,
 * so that members of a group want the slot at once and the HA group's order is put to the test.
 */
const WINDOW_SECONDS = 2;

jest.setTimeout(180_000);

describe('faults between agents and the exchange', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ServiceConfig>;
  let proxy: TcpProxy;
  let fleet: SimulatedFleet;

  const call = (method: string, path: string, body?: unknown) =>
    http(exchange.url, method, path, { auth: ROOT, body });
  const publish = (version: string) => publishAgentPackage(exchange.url, ROOT, version);
  let policy: string | undefined;
  /**
   * Publishes `version` and a policy that moves the fleet to it within a short window, in place
   * of the previous one (an agent takes one agent-upgrade policy at a time).
   */
  const rollTo = async (version: string) => {
    await publish(version);
    if (policy)
      expect((await call('DELETE', `/v1/orgs/acme/management-policies/${policy}`)).status).toBe(200);
    policy = `to-${version.replace(/\./g, '-')}`;
    const answer = await call('PUT', `/v1/orgs/acme/management-policies/${policy}`, {
      enabled: true,
      allowDisruptive: true,
      agentUpgradePolicy: { atLeastVersion: version, start: 'now', duration: WINDOW_SECONDS },
    });
    expect(answer.status).toBeLessThan(300);
  };
  const everyAgentAt = (version: string) =>
    eventually(() => expect(fleet.versions()).toEqual({ [version]: NODES }), {
      timeoutMs: 120_000,
      intervalMs: 200,
    });
  const noGroupDownTwice = () => {
    const groups = new Map(fleet.agents.map((agent) => [agent.node, agent.haGroup]));
    expect(overlapsWithinGroups(upgradeSpans(fleet.timeline), groups)).toEqual([]);
  };

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    const agbot = await startServiceInProcess(agbotService, infra, {
      CAREEN_EXCHANGE_URL: exchange.url,
      CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    });
    await call('POST', '/v1/orgs', { id: 'acme' });
    await call('POST', '/v1/orgs/acme/users', {
      username: 'ada',
      password: 'ada-password',
      role: 'orgAdmin',
    });
    await publish('1.0.0');
    proxy = await startTcpProxy([Number(new URL(exchange.url).port)]);
    fleet = await startSimulatedFleet({
      exchangeUrl: proxy.url,
      agbotUrl: agbot.url,
      org: 'acme',
      admin: { username: 'ada', password: 'ada-password' },
      nodes: NODES,
      haGroups: GROUPS,
      initialVersion: '1.0.0',
      pollSeconds: 2,
      logger: createLogger('agent-faults', { level: 'error' }),
    });
    // Stopped before the services and the infra go: its agents' long polls would hold them up.
    infra.track(async () => {
      proxy.heal();
      await fleet.stop();
      await proxy.close();
    });
  });

  it('catches up with a policy published while the agents were cut off', async () => {
    proxy.partition();
    try {
      await rollTo('2.0.0');
      // Nothing reaches the agents meanwhile: none has even started.
      expect(fleet.timeline.filter((entry) => entry.version === '2.0.0')).toEqual([]);
    } finally {
      proxy.heal();
    }
    await everyAgentAt('2.0.0');
    noGroupDownTwice();
  });

  it('rolls the fleet over a slow link', async () => {
    proxy.delay(150);
    try {
      await rollTo('3.0.0');
      await everyAgentAt('3.0.0');
    } finally {
      proxy.delay(0);
    }
    noGroupDownTwice();
  });

  it('rolls the fleet when connections are reset in the middle of the upgrades', async () => {
    await rollTo('4.0.0');
    // Reset every connection each time another agent starts its upgrade.
    for (let started = 1; started <= NODES / 2; started++) {
      await eventually(
        () =>
          expect(
            fleet.timeline.filter((entry) => entry.version === '4.0.0' && entry.status === 'initiated')
              .length,
          ).toBeGreaterThanOrEqual(started),
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      proxy.reset();
    }
    await everyAgentAt('4.0.0');
    noGroupDownTwice();
  });

  it('reads its workloads again when the read after they changed is cut off', async () => {
    const { node, runtime } = fleet.agents[0]!;
    const workloads = [
      { deploymentPolicy: 'cache', service: { org: 'acme', url: 'cache', version: '1.0.0' } },
    ];
    const cutOff = proxy.resetRequest(`GET /v1/orgs/acme/nodes/${node}/workloads `);
    const answer = await call('PUT', `/v1/orgs/acme/nodes/${node}/workloads`, { workloads });
    expect(answer.status).toBe(200);
    await cutOff;
    // Nothing else changes on the node: only the agent trying again brings the workload up.
    await eventually(() => expect(runtime.actual()).toEqual([{ ...workloads[0], state: 'running' }]), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
  });
});
