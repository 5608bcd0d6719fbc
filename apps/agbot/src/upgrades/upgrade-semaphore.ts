/**
 * The HA-group upgrade semaphore (docs/architecture.md, Agent-upgrade grants; invariant 1). A
 * grant is one transaction (grant-store.ts): share-lock the node's mirror row (its group cannot
 * change under us), take the group's advisory lock, read the slots held, let the rule
 * (slot-rule.ts) release lapsed holders and renew, grant or refuse. Releases (by the
 * holder, the monitor or the sweep) lock only the slot's row. Safe across any number of
 * replicas: Postgres is the only arbiter.
 */
import { type UpgradeReleaseReason } from '@careen/contracts';
import { type DataSource, type EntityManager } from 'typeorm';
import { type GateRefusal } from '../disruption/disruption-gate';
import { type GroupSlotState } from './grant-reads';
import { type GrantStore, type HaltRequest, type ReleaseConditions, type SlotRequest } from './grant-store';
import { type GrantKey, type ReleasedGrant, type UpgradeGrant } from './upgrade-grant';
import { type UpgradeMetrics } from './upgrade-metrics';

export type AcquireRequest = SlotRequest;

/** A halt an admin ended, as it was: its holder, policy, error, and whether its policy was removed. */
export type HaltReset = UpgradeGrant & { policyRemoved: boolean };

export type AcquireResult =
  | { outcome: 'granted' | 'renewed'; grant: UpgradeGrant }
  | { outcome: 'refused'; haGroup: string | null; blocker: UpgradeGrant }
  | { outcome: 'gated'; haGroup: string | null; refusal: GateRefusal }
  | { outcome: 'unknown-node' | 'policy-stopped' };

export class UpgradeSemaphore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: GrantStore,
    private readonly metrics?: UpgradeMetrics,
  ) {}

  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    const answer = await this.store.acquire(this.dataSource.manager, request);
    this.countReleases(answer.released);
    if (answer.outcome !== 'gated') this.metrics?.notGated(request);
    switch (answer.outcome) {
      case 'unknown-node':
      case 'policy-stopped':
        this.metrics?.refused(request.kind);
        return { outcome: answer.outcome };
      case 'refused':
        this.metrics?.refused(request.kind);
        return { outcome: 'refused', haGroup: answer.haGroup, blocker: answer.grant };
      case 'gated':
        this.metrics?.blocked(request, answer.refusal.reason);
        return { outcome: 'gated', haGroup: answer.haGroup, refusal: answer.refusal };
      case 'granted':
        this.metrics?.granted(request.kind);
        return { outcome: 'granted', grant: answer.grant };
      case 'renewed':
        this.metrics?.renewed(request.kind);
        return { outcome: 'renewed', grant: answer.grant };
    }
  }

  /**
   * Extends the lease of a slot the node holds for this policy; never grants one. A renewal
   * that arrives after the slot was released (a holder's request delayed past its own release)
   * therefore cannot take the group again.
   */
  async renew(
    key: GrantKey,
    managementPolicy: string,
    leaseSeconds: number,
  ): Promise<UpgradeGrant | undefined> {
    const grant = await this.store.renew(this.dataSource.manager, key, leaseSeconds, managementPolicy);
    if (grant) this.metrics?.renewed(key.kind);
    return grant;
  }

  /**
   * Gives the node's slot of this kind back; idempotent. A halted slot stays: the answer is
   * then the slot still held.
   */
  async release(
    key: GrantKey,
    reason: UpgradeReleaseReason = 'released',
  ): Promise<{ released?: UpgradeGrant; halted?: UpgradeGrant }> {
    const released = await this.store.release(this.dataSource.manager, [key], reason);
    this.countReleases(released);
    if (released[0]) return { released: released[0] };
    const halted = (await this.store.ofNode(this.dataSource.manager, key.org, key.node)).find(
      (grant) => grant.kind === key.kind && grant.haltedAt !== null,
    );
    return halted ? { halted } : {};
  }

  /** Halts the member's group, inside the caller's transaction (the monitor's). */
  haltIn(manager: EntityManager, request: HaltRequest): Promise<UpgradeGrant | undefined> {
    return this.store.halt(manager, request);
  }

  /**
   * Ends the halts of the group (only its member `node`'s, given one) as an admin's reset of the
   * member's status does: each halted slot released as `reset`, with its history row and event.
   * Whatever became of the policy the halt is for: a halt outlives its policy. A slot its holder
   * took again since it was read, not halted, stays.
   */
  async resetHalts(org: string, haGroup: string, node?: string): Promise<HaltReset[]> {
    const manager = this.dataSource.manager;
    const halts = await this.store.haltsIn(manager, org, haGroup, node);
    const released = await this.store.release(
      manager,
      halts.map((halt) => ({ org, node: halt.node, kind: halt.kind })),
      'reset',
      { haltedToo: true, haltedOnly: true },
    );
    this.countReleases(released);
    return halts.filter((halt) =>
      released.some((grant) => grant.node === halt.node && grant.kind === halt.kind),
    );
  }

  /** See GrantStore.groupOf. */
  groupOf(org: string, node: string): Promise<string | null | undefined> {
    return this.store.groupOf(this.dataSource.manager, org, node);
  }

  knowsGroup(org: string, haGroup: string): Promise<boolean> {
    return this.store.knowsGroup(this.dataSource.manager, org, haGroup);
  }

  groups(org: string): Promise<GroupSlotState[]> {
    return this.store.groups(this.dataSource.manager, org);
  }

  /**
   * Releases, inside the caller's transaction (the monitor's), the slots that match. The caller
   * counts them with `countReleases` once its transaction has committed.
   */
  releaseIn(
    manager: EntityManager,
    keys: readonly GrantKey[],
    reason: UpgradeReleaseReason,
    only?: ReleaseConditions,
  ): Promise<ReleasedGrant[]> {
    return this.store.release(manager, keys, reason, only);
  }

  /**
   * Releases every slot whose lease ran out, one statement per slot so that several
   * replicas sweeping at once only ever release each slot once. Returns how many it released.
   */
  async sweepExpired(batch = 500): Promise<number> {
    let total = 0;
    for (;;) {
      const due = await this.store.expired(this.dataSource.manager, batch);
      for (const key of due) {
        const released = await this.store.release(this.dataSource.manager, [key], 'lease-expired');
        this.countReleases(released);
        total += released.length;
      }
      if (due.length < batch) return total;
    }
  }

  list(org: string): Promise<(UpgradeGrant & { ageSeconds: number })[]> {
    return this.store.list(this.dataSource.manager, org);
  }

  countReleases(released: readonly ReleasedGrant[]): void {
    for (const grant of released) {
      this.metrics?.released(
        grant.kind,
        grant.reason,
        (grant.releasedAt.getTime() - grant.grantedAt.getTime()) / 1000,
      );
    }
  }
}
