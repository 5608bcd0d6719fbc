/**
 * FleetLock over the upgrade semaphore: a FleetLock group is an HA group of the FleetLock org
 * and `id` a node there. pre-reboot takes one of the group's FleetLock slots (none while an
 * agent upgrade holds the group); steady-state gives it back.
 */
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { type AgbotConfig } from '../agbot.config';
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { UpgradeSemaphore } from '../upgrades/upgrade-semaphore';
import { expectedFleetLockGroup, type FleetLockClient } from './fleetlock-request';
import { FleetLockWaiters } from './fleetlock-waiters';
import { FleetLockError } from './fleetlock.errors';

export interface FleetLockSlot {
  id: string;
  group: string;
  leaseExpiresAt: string;
}

@Injectable()
export class FleetLockService {
  constructor(
    private readonly semaphore: UpgradeSemaphore,
    private readonly mirror: ExchangeMirror,
    private readonly waiters: FleetLockWaiters,
    @Inject(SERVICE_CONFIG) private readonly config: AgbotConfig,
  ) {}

  /** The org FleetLock clients belong to; 503 until one is configured. */
  org(): string {
    const org = this.config.CAREEN_FLEETLOCK_ORG;
    if (!org)
      throw new FleetLockError('not_configured', 'FleetLock is not configured: set CAREEN_FLEETLOCK_ORG');
    return org;
  }

  async preReboot(client: FleetLockClient): Promise<FleetLockSlot> {
    const org = this.org();
    const node = await this.mirror.findNode(org, client.id);
    if (!node) throw unknownClient(org, client.id);
    assertGroup(client, node.haGroup);
    const result = await this.semaphore.acquire({
      org,
      node: client.id,
      kind: 'fleetlock',
      managementPolicy: null,
      leaseSeconds: this.config.CAREEN_FLEETLOCK_LEASE_SECONDS,
      fleetLockSlots: this.config.CAREEN_FLEETLOCK_SLOTS,
    });
    switch (result.outcome) {
      case 'unknown-node':
      case 'policy-stopped': // a reboot names no management policy: never stopped
        throw unknownClient(org, client.id);
      case 'refused':
        await this.waiters.refused(org, client.id, client.group);
        throw new FleetLockError(
          'failed_lock_semaphore_full',
          result.blocker.haltedAt
            ? `semaphore currently full: node "${result.blocker.node}" of group "${client.group}" failed its agent upgrade and is not healthy again: ${result.blocker.haltError ?? 'no error reported'}`
            : result.blocker.kind === 'agent-upgrade'
              ? `semaphore currently full: node "${result.blocker.node}" is upgrading its agent in group "${client.group}"`
              : `semaphore currently full, all ${this.config.CAREEN_FLEETLOCK_SLOTS} slot(s) of group "${client.group}" are locked already`,
        );
      case 'gated':
        await this.waiters.refused(org, client.id, client.group);
        throw new FleetLockError(
          'failed_lock_disruption_gated',
          `reboot not allowed now: ${result.refusal.message}`,
        );
      case 'granted':
      case 'renewed':
        await this.waiters.left(org, client.id);
        return {
          id: client.id,
          group: client.group,
          leaseExpiresAt: result.grant.leaseExpiresAt.toISOString(),
        };
    }
  }

  /** Releases the client's slot if it holds one; idempotent. */
  async steadyState(client: FleetLockClient): Promise<{ id: string; group: string; released: boolean }> {
    const org = this.org();
    const { released } = await this.semaphore.release({ org, node: client.id, kind: 'fleetlock' });
    await this.waiters.left(org, client.id);
    return { id: client.id, group: client.group, released: released !== undefined };
  }
}

function unknownClient(org: string, id: string): FleetLockError {
  return new FleetLockError('unknown_client', `client_params.id "${id}" is not a node of org "${org}"`);
}

function assertGroup(client: FleetLockClient, haGroup: string | null): void {
  const expected = expectedFleetLockGroup(haGroup);
  if (client.group !== expected) {
    throw new FleetLockError(
      'group_mismatch',
      haGroup
        ? `node "${client.id}" is in HA group "${haGroup}": its FleetLock group must be "${expected}", not "${client.group}"`
        : `node "${client.id}" is in no HA group: its FleetLock group must be "${expected}", not "${client.group}"`,
    );
  }
}
