/**
 * Trove-style single-node upgrades (docs/domain.md, OpenStack Trove): an admin notifies one node
 * of a new agent version through the same machinery as a rollout (a node-targeted management
 * policy the node's agent enacts, asking the agbot first inside an HA group), and every attempt
 * is kept as a history row.
 * A node that cannot be upgraded now is refused with the reason: in a maintenance session,
 * offline, or already in a rollout or upgrade; a version below the one it runs is refused
 * unless the request allows a downgrade, which its policy then carries so that the agent goes
 * down to the version (a rollback).
 */
import { type AuditTrail } from '@careen/service';
import { randomUUID } from 'node:crypto';
import { type FleetGateway } from '../fleet/fleet-gateway';
import { downgradeRefused, nodeNotFound, nodeNotUpgradeable, packageNotFound } from '../orchestrator.errors';
import { claimNodes } from '../rollouts/rollout-store';
import { upgradeHolder } from '../rollouts/rollout-record';
import { type UpgradeRecord, type UpgradeStore } from './upgrade-store';
import { isDowngrade, type UpgradeState, UPGRADE_POLICY_PREFIX } from './upgrade-states';

export interface RequestUpgrade {
  node_id: string;
  version: string;
  strategy: string;
  location?: string;
  allowDowngrade?: boolean;
}

export class Upgrades {
  onChange: () => void = () => undefined;

  constructor(
    private readonly store: UpgradeStore,
    private readonly fleet: FleetGateway,
    private readonly audit: Pick<AuditTrail, 'record'>,
    /** A node whose last report is older than this is offline. */
    private readonly offlineSeconds: number,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async request(org: string, actor: string, request: RequestUpgrade): Promise<UpgradeRecord> {
    const node = await this.fleet.node(org, request.node_id);
    if (!node) throw nodeNotFound(request.node_id);
    if (node.maintenance) throw nodeNotUpgradeable(node.id, 'it is in a maintenance session');
    const seen = node.lastHeartbeat ? Date.parse(node.lastHeartbeat) : undefined;
    if (seen === undefined || this.clock().getTime() - seen > this.offlineSeconds * 1000)
      throw nodeNotUpgradeable(
        node.id,
        seen === undefined
          ? 'it is offline: it has never reported'
          : `it is offline: last seen ${node.lastHeartbeat}`,
      );
    if (isDowngrade(node.agentVersion, request.version) && request.allowDowngrade !== true)
      throw downgradeRefused(node.id, node.agentVersion!, request.version);
    if (!(await this.fleet.packageExists(request.version))) throw packageNotFound(request.version);
    const id = randomUUID();
    const now = this.clock();
    const upgrade: UpgradeRecord = {
      id,
      org,
      node_id: node.id,
      from_version: node.agentVersion,
      to_version: request.version,
      strategy: request.strategy,
      location: request.location ?? null,
      allow_downgrade: request.allowDowngrade === true,
      state: 'pending',
      status: null,
      error: null,
      policy: `${UPGRADE_POLICY_PREFIX}${id.slice(0, 8)}-${node.id}`.slice(0, 64),
      created_by: actor,
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
    };
    await this.store.transaction(async (manager) => {
      await claimNodes(manager, org, [node.id], upgradeHolder(id));
      await this.store.insert(manager, upgrade);
      await this.audit.record(manager, {
        org,
        action: 'upgrade.requested',
        target: `upgrade/${id}#node/${node.id}`,
      });
    });
    this.onChange();
    return upgrade;
  }

  list(
    org: string,
    filter: { node?: string; state?: UpgradeState; limit: number },
  ): Promise<UpgradeRecord[]> {
    return this.store.list(org, filter);
  }
}
