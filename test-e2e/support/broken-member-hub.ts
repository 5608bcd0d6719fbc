/**
 * The halted-group fixture of the CLI tests: the real exchange and agbot with two simulated
 * agents dealt into one HA group, the first of which fails every install and its rollback.
 */
import { startSimulatedFleet, type SimulatedFleet } from '@careen/agent/src/index';
import { createLogger } from '@careen/telemetry';
import { type HttpResult } from '@careen/testing';
import { ORG_ADMIN, startRolloutHub, type RolloutHub } from './rollout-hub';

/** Members are dealt round-robin: both nodes are in sim-group-1. */
export const BROKEN = 'sim-0001';
export const PEER = 'sim-0002';
export const GROUP = 'sim-group-1';

export interface BrokenMemberHub {
  hub: RolloutHub;
  fleet: SimulatedFleet;
  /** Publishes an enabled upgrade of `nodes` to 2.0.0, starting at `start`. */
  publish(name: string, nodes: string[], start?: string): Promise<HttpResult>;
  /** The status a node last reported for a policy. */
  reportOf(node: string, nmp: string): Promise<{ status: string; error: string | null }>;
}

export async function startBrokenMemberHub(
  infra: { databaseUrl: string; natsUrl: string; track(close: () => Promise<void>): void },
  name: string,
): Promise<BrokenMemberHub> {
  const hub = await startRolloutHub(infra);
  const fleet = await startSimulatedFleet({
    exchangeUrl: hub.exchange.url,
    agbotUrl: hub.agbot.url,
    org: 'acme',
    admin: ORG_ADMIN,
    nodes: 2,
    haGroups: 1,
    initialVersion: '1.0.0',
    shouldFail: (node) => node === BROKEN,
    shouldFailRollback: (node) => node === BROKEN,
    pollSeconds: 1,
    logger: createLogger(name, { level: 'error' }),
  });
  // Stopped before the services and the infra go: its agents' long polls would hold them up.
  infra.track(() => fleet.stop());
  return {
    hub,
    fleet,
    publish: (policy, nodes, start = 'now') =>
      hub.call('PUT', `/v1/orgs/acme/management-policies/${policy}`, {
        enabled: true,
        nodes,
        agentUpgradePolicy: { atLeastVersion: '2.0.0', start, duration: 0 },
      }),
    reportOf: async (node, nmp) =>
      (await hub.call('GET', `/v1/orgs/acme/nodes/${node}/managementStatus/${nmp}`)).body as {
        status: string;
        error: string | null;
      },
  };
}
