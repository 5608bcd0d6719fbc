/**
 * Agent-upgrade and maintenance grants as the HTTP API offers them: who may ask for which
 * node, and what a grant, a refusal and a release look like. The rules themselves are the
 * semaphore's.
 */
import { type Principal } from '@careen/auth';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AgbotConfig } from '../agbot.config';
import {
  UpgradeGrantResponse,
  type UpgradeHolderListResponse,
  UpgradeHolderResponse,
} from './dto/upgrade-grant.response';
import { type SlotRequest } from './grant-store';
import { ANYWHERE, GroupReleases } from './group-releases';
import { UpgradeSemaphore } from './upgrade-semaphore';
import { UpgradeGroupListResponse, UpgradeGroupResponse } from './dto/upgrade-group.response';
import { EndedHaltResponse, type HaltResetResponse } from './dto/halt-reset.response';
import {
  grantNotHeld,
  groupBusy,
  groupHalted,
  notAMember,
  notThisNode,
  policyStopped,
  upgradeGroupNotFound,
  upgradeNodeNotFound,
  disruptionGated,
} from './upgrades.errors';
import { type GateRefusal } from '../disruption/disruption-gate';

/** How often a request waiting on a budget asks again when no release wakes it sooner. */
const GATE_RECHECK_MS = 5_000;

/** When a refusal by the clock ends; undefined for a budget (a release ends it). */
function retryAt(refusal: GateRefusal): number | undefined {
  if (refusal.reason === 'freeze' || refusal.reason === 'busy' || refusal.reason === 'soak')
    return refusal.until.getTime();
  if (refusal.reason === 'outside-window') return refusal.opensAt?.getTime();
  return undefined;
}

/** A node acts only for itself; users reach here only with a role the route allows. */
export function assertActsForNode(actor: Principal, node: string): void {
  if (actor.kind === 'node' && actor.node !== node) throw notThisNode();
}

@Injectable()
export class UpgradesService {
  constructor(
    private readonly semaphore: UpgradeSemaphore,
    private readonly releases: GroupReleases,
    @Inject(SERVICE_CONFIG) private readonly config: AgbotConfig,
  ) {}

  /**
   * Grants, renews or refuses. With `waitSeconds`, a refusal waits for a release in the group
   * (or the holder's lease to run out) and asks again, until granted or the time is up (then
   * refused without a last ask: the caller asks anew); a request whose caller hung up
   * (`signal`) stops without asking again.
   */
  async grantUpgrade(
    actor: Principal,
    org: string,
    node: string,
    managementPolicy: string,
    waitSeconds = 0,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<UpgradeGrantResponse> {
    assertActsForNode(actor, node);
    return this.acquire(
      {
        org,
        node,
        kind: 'agent-upgrade',
        managementPolicy,
        leaseSeconds: this.config.CAREEN_UPGRADE_LEASE_SECONDS,
        fleetLockSlots: this.config.CAREEN_FLEETLOCK_SLOTS,
      },
      waitSeconds,
      signal,
    );
  }

  /**
   * Takes (or renews) the node's maintenance slot in its HA group for `leaseSeconds`, waiting
   * like an agent upgrade does: a host goes into maintenance only while no other member of its
   * group is down for any reason.
   */
  grantMaintenance(
    org: string,
    node: string,
    leaseSeconds: number,
    waitSeconds = 0,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<UpgradeGrantResponse> {
    return this.acquire(
      {
        org,
        node,
        kind: 'maintenance',
        managementPolicy: null,
        leaseSeconds,
        fleetLockSlots: this.config.CAREEN_FLEETLOCK_SLOTS,
      },
      waitSeconds,
      signal,
    );
  }

  /** Gives the node's maintenance slot back; nothing to do when it holds none. */
  async releaseMaintenance(org: string, node: string): Promise<void> {
    await this.semaphore.release({ org, node, kind: 'maintenance' });
  }

  private async acquire(
    request: SlotRequest,
    waitSeconds: number,
    signal: AbortSignal,
  ): Promise<UpgradeGrantResponse> {
    const { org, node } = request;
    const deadline = Date.now() + waitSeconds * 1000;
    const watch = this.releases.watch(org);
    try {
      for (;;) {
        const result = await this.semaphore.acquire(request);
        switch (result.outcome) {
          case 'unknown-node':
            throw upgradeNodeNotFound(org, node);
          case 'policy-stopped':
            throw policyStopped(org, request.managementPolicy!);
          case 'granted':
          case 'renewed':
            return UpgradeGrantResponse.from(result.grant);
          case 'gated': {
            if (Date.now() >= deadline) throw disruptionGated(org, node, result.refusal);
            // A budget frees when a holder anywhere in the org releases; a release changes nothing
            // of the others, which end at their time (asked again soon when it is past already: the
            // database's clock may run behind this one) or are asked again every few seconds.
            const until = Math.min(
              deadline,
              Math.max(retryAt(result.refusal) ?? Date.now() + GATE_RECHECK_MS, Date.now() + 250),
            );
            const end =
              result.refusal.reason === 'budget'
                ? await watch.released(ANYWHERE, until, signal)
                : await sleep(until - Date.now(), undefined, { signal }).then(
                    () => 'time-up' as const,
                    () => 'hung-up' as const,
                  );
            // As for a busy group: once time is up the caller asks anew, not this request once more.
            if (end === 'hung-up' || (end === 'time-up' && Date.now() >= deadline))
              throw disruptionGated(org, node, result.refusal);
            break;
          }
          case 'refused': {
            if (Date.now() >= deadline) throw groupBusy(result.haGroup, result.blocker);
            // A halted slot has no lease end to wait for: only its release frees the group.
            const until = result.blocker.haltedAt
              ? deadline
              : Math.min(deadline, result.blocker.leaseExpiresAt.getTime());
            const end = await watch.released(result.haGroup, until, signal);
            if (end === 'hung-up') throw groupBusy(result.haGroup, result.blocker);
            // Time is up with nothing released: the caller asks anew, so asking here as well would
            // only double its next ask. A lease that ends before the deadline is asked about.
            if (end === 'time-up' && Date.now() >= deadline) throw groupBusy(result.haGroup, result.blocker);
          }
        }
      }
    } finally {
      watch.close();
    }
  }

  /** Extends the lease of the grant the node holds for this policy (404 when it holds none). */
  async renewUpgrade(
    actor: Principal,
    org: string,
    node: string,
    managementPolicy: string,
  ): Promise<UpgradeGrantResponse> {
    assertActsForNode(actor, node);
    const grant = await this.semaphore.renew(
      { org, node, kind: 'agent-upgrade' },
      managementPolicy,
      this.config.CAREEN_UPGRADE_LEASE_SECONDS,
    );
    if (!grant) throw grantNotHeld(org, node, managementPolicy);
    return UpgradeGrantResponse.from(grant);
  }

  /** Gives the slot back; a halted slot stays until the node is healthy or reset (409). */
  async releaseUpgrade(actor: Principal, org: string, node: string): Promise<void> {
    assertActsForNode(actor, node);
    const { halted } = await this.semaphore.release({ org, node, kind: 'agent-upgrade' });
    if (halted) throw groupHalted(org, halted);
  }

  /**
   * An admin ends the group's halt (or only its member `node`'s), whatever became of the policy
   * it is for. Ending none (the halt had ended already) is no error: the answer says so.
   */
  async resetHalts(org: string, haGroup: string, node?: string): Promise<HaltResetResponse> {
    if (node !== undefined) {
      const group = await this.semaphore.groupOf(org, node);
      if (group === undefined) throw upgradeNodeNotFound(org, node);
      if (group !== haGroup) throw notAMember(org, haGroup, node, group);
    } else if (!(await this.semaphore.knowsGroup(org, haGroup))) throw upgradeGroupNotFound(org, haGroup);
    const items = (await this.semaphore.resetHalts(org, haGroup, node)).map((halt) =>
      EndedHaltResponse.from(halt),
    );
    return { haGroup, items, total: items.length };
  }

  async listHolders(org: string): Promise<UpgradeHolderListResponse> {
    const items = (await this.semaphore.list(org)).map((grant) => UpgradeHolderResponse.from(grant));
    return { items, total: items.length };
  }

  async listGroups(org: string): Promise<UpgradeGroupListResponse> {
    const items = (await this.semaphore.groups(org)).map((group) => UpgradeGroupResponse.from(group));
    return { items, total: items.length };
  }
}
