/**
 * Ends grants when the exchange says their reason is gone: the holder's management status for
 * that policy reached an end (successful, rolled back, ...), the node left or changed its HA
 * group, or it was deleted. A member whose install failed and that is not healthy again halts
 * its group instead: its slot is kept (or taken) with no lease end until it reports healthy
 * (`rolled-back`, `successful`) or an admin resets its status. A status set before the grant
 * was made (or before the node's slot was last released) tells of an earlier upgrade and is
 * ignored. Any other status the holder reports for that policy, and every heartbeat newer than
 * the lease's last renewal, show it alive and renew its lease. Runs in the mirror's
 * transaction, once per change; a transaction may hold several changes.
 */
import {
  TERMINAL_STATUSES,
  UNHEALTHY_STATUSES,
  type ChangeOf,
  type ChangePayload,
  type ManagementStatusValue,
} from '@careen/contracts';
import { type EntityManager } from 'typeorm';
import { type ChangeListener } from '../mirror/change-listener';
import { type GrantStore } from './grant-store';
import { type ReleasedGrant, type UpgradeGrant } from './upgrade-grant';
import { type UpgradeSemaphore } from './upgrade-semaphore';

/** What a status does to the holder's slot. */
export type StatusEffect = 'release' | 'halt' | 'heal' | 'reset' | 'renew';

const HEALTHY: readonly ManagementStatusValue[] = ['successful', 'rolled-back'];

export function statusEffect(status: ManagementStatusValue): StatusEffect {
  if (UNHEALTHY_STATUSES.includes(status)) return 'halt';
  if (HEALTHY.includes(status)) return 'heal';
  if (status === 'reset') return 'reset';
  if (TERMINAL_STATUSES.includes(status)) return 'release';
  return 'renew';
}

/**
 * The grants a node's change ends: those held for another HA group than the one the node is in
 * now. Most changes of a holder (its heartbeats, its status) leave its group as it was: they
 * release nothing, and so send no statement to release it. The release statement checks the
 * group again under its lock.
 */
export function heldOutsideGroup(held: readonly UpgradeGrant[], group: string | null): UpgradeGrant[] {
  return held.filter((grant) => grant.haGroup !== group);
}

export class UpgradeMonitor implements ChangeListener {
  /** Releases made in the current transaction, counted in metrics once it commits. */
  private pending: ReleasedGrant[] = [];
  /** The transaction `pending` belongs to; releases of one that rolled back are forgotten. */
  private pendingIn: EntityManager | undefined;

  constructor(
    private readonly semaphore: UpgradeSemaphore,
    private readonly store: GrantStore,
    private readonly leaseSeconds: number,
  ) {}

  /**
   * A halt takes its group's advisory lock. In a transaction of its own it takes it before any
   * row lock, as a grant does, so the two never wait for each other in a circle.
   */
  alone(change: ChangePayload): boolean {
    if (change.resource !== 'managementStatus') return false;
    const status = (change as ChangeOf<'managementStatus'>).data?.status;
    return status !== undefined && statusEffect(status) === 'halt';
  }

  async onChange(change: ChangePayload, manager: EntityManager): Promise<void> {
    if (manager !== this.pendingIn) {
      this.pending = [];
      this.pendingIn = manager;
    }
    switch (change.resource) {
      case 'node':
        return this.onNodeChange(change as ChangeOf<'node'>, manager);
      case 'haGroup':
        return this.onGroupChange(change, manager);
      case 'managementStatus':
        return this.onStatusChange(change as ChangeOf<'managementStatus'>, manager);
      case 'org':
      case 'user':
      case 'serviceAccount':
      case 'apiKey':
      case 'identityProvider':
      case 'service':
      case 'deploymentPolicy':
      case 'managementPolicy':
      case 'agentPackage':
      case 'window':
      case 'freeze':
      case 'budget':
      case 'gate':
        return;
    }
  }

  afterCommit(): void {
    this.semaphore.countReleases(this.pending);
    this.pending = [];
    this.pendingIn = undefined;
  }

  private async release(...args: Parameters<UpgradeSemaphore['releaseIn']>): Promise<void> {
    this.pending.push(...(await this.semaphore.releaseIn(...args)));
  }

  private async onNodeChange(change: ChangeOf<'node'>, manager: EntityManager): Promise<void> {
    const { org, resourceId: node } = change;
    if (change.operation === 'deleted') {
      const held = await this.store.ofNode(manager, org, node);
      await this.release(manager, held, 'node-deleted', { haltedToo: true });
      return;
    }
    if (!change.data) return;
    const group = change.data.haGroup ?? null;
    const strayed = heldOutsideGroup(await this.store.ofNode(manager, org, node), group);
    if (strayed.length > 0)
      await this.release(manager, strayed, 'left-group', { notInGroup: group, haltedToo: true });
    const heartbeat = heartbeatOf(change.data);
    if (heartbeat) await this.store.renewOnHeartbeat(manager, org, [node], heartbeat, this.leaseSeconds);
  }

  private async onGroupChange(change: ChangePayload, manager: EntityManager): Promise<void> {
    // Members that left were published as node changes before this one, so the mirror knows.
    const strayed = await this.store.strayedFrom(manager, change.org, change.resourceId);
    await this.release(manager, strayed, 'left-group', {
      notInGroup: change.operation === 'deleted' ? null : change.resourceId,
      haltedToo: true,
    });
  }

  private async onStatusChange(change: ChangeOf<'managementStatus'>, manager: EntityManager): Promise<void> {
    if (!change.data) return;
    const { node, nmp, status, error } = change.data;
    const { org } = change;
    const key = { org, node, kind: 'agent-upgrade' as const };
    const effect = statusEffect(status);
    // Most of an upgrade's statuses only show the holder alive: the renewal needs no read first.
    if (effect === 'renew') {
      await this.store.renew(manager, key, this.leaseSeconds, nmp);
      return;
    }
    const changedAt = Date.parse(change.changedAt);
    const held = (await this.store.ofNode(manager, org, node)).find(
      (grant) => grant.kind === 'agent-upgrade' && grant.managementPolicy === nmp,
    );
    // A status written before this slot was granted ends an earlier upgrade, not this one.
    const current = held && held.grantedAt.getTime() <= changedAt ? held : undefined;
    switch (effect) {
      case 'halt':
        if (!current && !(await this.newerThanLastRelease(manager, org, node, changedAt, held))) return;
        await this.semaphore.haltIn(manager, {
          org,
          node,
          managementPolicy: nmp,
          error: typeof error === 'string' ? error : null,
          failedAt: new Date(changedAt),
        });
        return;
      case 'heal':
        if (current)
          await this.release(manager, [key], current.haltedAt ? 'healthy' : 'terminal-status', healed(nmp));
        return;
      case 'reset':
        if (held?.haltedAt) await this.release(manager, [key], 'reset', healed(nmp));
        return;
      case 'release':
        // A halted member that reports something else (its failed version refused) stays halted.
        if (current && !current.haltedAt)
          await this.release(manager, [key], 'terminal-status', { managementPolicy: nmp });
        return;
    }
  }

  /**
   * Whether an unhealthy status the node reported while holding no slot for it is news: not when
   * its slot was released after the status was written (by a reset, say), which a late or
   * replayed change must not undo.
   */
  private async newerThanLastRelease(
    manager: EntityManager,
    org: string,
    node: string,
    changedAt: number,
    held: UpgradeGrant | undefined,
  ): Promise<boolean> {
    if (held) return false;
    const released = await this.store.lastReleased(manager, org, node);
    return !released || released.getTime() <= changedAt;
  }
}

/** The conditions of a release that ends a halt (or an upgrade) of this policy. */
function healed(managementPolicy: string) {
  return { managementPolicy, haltedToo: true };
}

/** When the node last reported, if the change carries its status. */
function heartbeatOf(data: ChangeOf<'node'>['data']): Date | undefined {
  const status = data?.status as { lastHeartbeat?: unknown } | null | undefined;
  const beat = typeof status?.lastHeartbeat === 'string' ? new Date(status.lastHeartbeat) : undefined;
  return beat && !Number.isNaN(beat.getTime()) ? beat : undefined;
}
