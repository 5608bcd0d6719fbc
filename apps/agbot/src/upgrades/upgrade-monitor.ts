/**
 * Ends grants when the exchange says their reason is gone: the holder's management status for
 * that policy reached an end (successful, failed, rolled back, ...), the node left or changed
 * its HA group, or it was deleted. A terminal status set before the grant was made ends an
 * earlier upgrade and is ignored. Any other status the holder reports for that policy, and every
 * heartbeat newer than the lease's last renewal, show it alive and renew its lease. Runs in the
 * mirror's transaction, once per change.
 */
import { TERMINAL_STATUSES, type ChangePayload, type ManagementStatusValue } from '@careen/contracts';
import { type EntityManager } from 'typeorm';
import { type ChangeListener } from '../mirror/change-listener';
import { type GrantStore, type ReleasedGrant } from './grant-store';
import { type UpgradeSemaphore } from './upgrade-semaphore';

/** Statuses after which the holder no longer needs its slot; `failed` ends the install even though a rollback follows. */
export const RELEASING_STATUSES: ReadonlySet<string> = new Set<ManagementStatusValue>([
  ...TERMINAL_STATUSES,
  'failed',
]);

export class UpgradeMonitor implements ChangeListener {
  /** Releases made in the current change's transaction, counted in metrics once it commits. */
  private pending: ReleasedGrant[] = [];

  constructor(
    private readonly semaphore: UpgradeSemaphore,
    private readonly store: GrantStore,
    private readonly leaseSeconds: number,
  ) {}

  async onChange(change: ChangePayload, manager: EntityManager): Promise<void> {
    this.pending = [];
    switch (change.resource) {
      case 'node':
        return this.onNodeChange(change, manager);
      case 'haGroup':
        return this.onGroupChange(change, manager);
      case 'managementStatus':
        return this.onStatusChange(change, manager);
      case 'org':
      case 'user':
      case 'service':
      case 'deploymentPolicy':
      case 'managementPolicy':
      case 'agentPackage':
        return;
    }
  }

  afterCommit(): void {
    this.semaphore.countReleases(this.pending);
    this.pending = [];
  }

  private async release(...args: Parameters<UpgradeSemaphore['releaseIn']>): Promise<void> {
    this.pending.push(...(await this.semaphore.releaseIn(...args)));
  }

  private async onNodeChange(change: ChangePayload, manager: EntityManager): Promise<void> {
    const { org, resourceId: node } = change;
    if (change.operation === 'deleted') {
      const held = await this.store.ofNode(manager, org, node);
      await this.release(manager, held, 'node-deleted');
      return;
    }
    // Node changes may be patches: only one that says which group the node is in now matters here.
    if (change.data && 'haGroup' in change.data) {
      const group = change.data.haGroup;
      const held = await this.store.ofNode(manager, org, node);
      await this.release(manager, held, 'left-group', {
        notInGroup: typeof group === 'string' ? group : null,
      });
    }
    const heartbeat = heartbeatOf(change.data);
    if (heartbeat) await this.store.renewOnHeartbeat(manager, org, node, heartbeat, this.leaseSeconds);
  }

  private async onGroupChange(change: ChangePayload, manager: EntityManager): Promise<void> {
    // Members that left were published as node changes before this one, so the mirror knows.
    const strayed = await this.store.strayedFrom(manager, change.org, change.resourceId);
    await this.release(manager, strayed, 'left-group', {
      notInGroup: change.operation === 'deleted' ? null : change.resourceId,
    });
  }

  private async onStatusChange(change: ChangePayload, manager: EntityManager): Promise<void> {
    const data = change.data ?? {};
    const node = typeof data.node === 'string' ? data.node : change.resourceId;
    const { nmp, status } = data;
    if (typeof nmp !== 'string' || typeof status !== 'string') return;
    const key = { org: change.org, node, kind: 'agent-upgrade' as const };
    if (RELEASING_STATUSES.has(status)) {
      // A status set before the grant (a late or replayed change) ends an earlier upgrade, not this one.
      const grant = (await this.store.ofNode(manager, change.org, node)).find(
        (each) => each.kind === 'agent-upgrade' && each.managementPolicy === nmp,
      );
      if (!grant || grant.grantedAt.getTime() > Date.parse(change.changedAt)) return;
      await this.release(manager, [key], 'terminal-status', { managementPolicy: nmp });
    } else {
      await this.store.renew(manager, key, this.leaseSeconds, nmp);
    }
  }
}

/** When the node last reported, if the change carries its status. */
function heartbeatOf(data: ChangePayload['data']): Date | undefined {
  const status = data?.status as { lastHeartbeat?: unknown } | null | undefined;
  const beat = typeof status?.lastHeartbeat === 'string' ? new Date(status.lastHeartbeat) : undefined;
  return beat && !Number.isNaN(beat.getTime()) ? beat : undefined;
}
