/**
 * Agent-upgrade grants as the HTTP API offers them: who may ask for which node, and what a
 * grant, a refusal and a release look like. The rules themselves are the semaphore's.
 */
import { type Principal } from '@careen/auth';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { type AgbotConfig } from '../agbot.config';
import {
  UpgradeGrantResponse,
  type UpgradeHolderListResponse,
  UpgradeHolderResponse,
} from './dto/upgrade-grant.response';
import { UpgradeSemaphore } from './upgrade-semaphore';
import { groupBusy, notThisNode, upgradeNodeNotFound } from './upgrades.errors';

/** A node acts only for itself; users reach here only with a role the route allows. */
export function assertActsForNode(actor: Principal, node: string): void {
  if (actor.kind === 'node' && actor.node !== node) throw notThisNode();
}

@Injectable()
export class UpgradesService {
  constructor(
    private readonly semaphore: UpgradeSemaphore,
    @Inject(SERVICE_CONFIG) private readonly config: AgbotConfig,
  ) {}

  async grantUpgrade(
    actor: Principal,
    org: string,
    node: string,
    managementPolicy: string,
  ): Promise<UpgradeGrantResponse> {
    assertActsForNode(actor, node);
    const result = await this.semaphore.acquire({
      org,
      node,
      kind: 'agent-upgrade',
      managementPolicy,
      leaseSeconds: this.config.CAREEN_UPGRADE_LEASE_SECONDS,
      fleetLockSlots: this.config.CAREEN_FLEETLOCK_SLOTS,
    });
    switch (result.outcome) {
      case 'unknown-node':
        throw upgradeNodeNotFound(org, node);
      case 'refused':
        throw groupBusy(result.haGroup, result.blocker);
      case 'granted':
      case 'renewed':
        return UpgradeGrantResponse.from(result.grant);
    }
  }

  async releaseUpgrade(actor: Principal, org: string, node: string): Promise<void> {
    assertActsForNode(actor, node);
    await this.semaphore.release({ org, node, kind: 'agent-upgrade' });
  }

  async listHolders(org: string): Promise<UpgradeHolderListResponse> {
    const items = (await this.semaphore.list(org)).map((grant) => UpgradeHolderResponse.from(grant));
    return { items, total: items.length };
  }
}
