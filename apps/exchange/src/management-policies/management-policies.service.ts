/**
 * Node management policies: published (created or replaced), read, deleted, and the nodes
 * each selects. `enabled` defaults to false; an enabled policy that would select every node
 * is refused unless the publisher confirms with `allowDisruptive`, and an enabled upgrade to a
 * version no agent package has is refused, as no node could enact it.
 */
import { principalId, type Principal } from '@careen/auth';
import { type AgentUpgradePolicy } from '@careen/contracts';
import { compileSelector, disruptiveReason } from '@careen/policy';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AgentPackageEntity } from '../agent-packages/agent-package.entity';
import { NodeEntity } from '../nodes/node.entity';
import { OrgsService } from '../orgs/orgs.service';
import { type ManagementPolicyDto } from './dto/management-policy.dto';
import {
  type AppliesToResponse,
  type ManagementPolicyListResponse,
  ManagementPolicyResponse,
} from './dto/management-policy.response';
import {
  disruptiveNeedsConfirmation,
  managementPolicyNotFound,
  upgradePackageMissing,
} from './management-policies.errors';
import { HaltedMemberResponse, type PolicyRemovedResponse } from './dto/policy-removed.response';
import { haltedMembers } from './halted-members';
import { ManagementPolicyEntity } from './management-policy.entity';
import { type PolicyEvent, PolicyEvents } from './policy-events';
import { archOf, missingPackage } from './upgrade-package';

@Injectable()
export class ManagementPoliciesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orgs: OrgsService,
    private readonly events: PolicyEvents,
  ) {}

  /**
   * Creates or fully replaces the policy; answers whether it was created. Its rollout state
   * (paused, the window of a resume) is not part of the document and stays; enabling it again
   * counts only the failures from then on towards failureThreshold.
   */
  async publish(
    actor: Principal,
    org: string,
    name: string,
    input: ManagementPolicyDto,
  ): Promise<{ created: boolean; policy: ManagementPolicyResponse }> {
    const fields = {
      label: input.label ?? '',
      description: input.description ?? '',
      constraints: input.constraints ?? [],
      properties: input.properties ?? [],
      patterns: input.patterns ?? [],
      nodes: input.nodes ?? [],
      enabled: input.enabled ?? false,
      agentUpgradePolicy: input.agentUpgradePolicy ? withDefaults(input.agentUpgradePolicy) : null,
      failureThreshold: input.failureThreshold ?? null,
    };
    const why = disruptiveReason({ org, ...fields });
    if (why && input.allowDisruptive !== true) throw disruptiveNeedsConfirmation(why);
    return this.dataSource.transaction(async (manager) => {
      await this.orgs.require(manager, org);
      if (fields.enabled) await this.requirePackage(manager, { org, ...fields });
      const existing = await manager.findOne(ManagementPolicyEntity, {
        where: { org, name },
        lock: { mode: 'pessimistic_write' },
      });
      const now = new Date();
      const reEnabled = existing !== null && !existing.enabled && fields.enabled;
      const saved = await manager.save(ManagementPolicyEntity, {
        org,
        name,
        owner: existing?.owner ?? principalId(actor),
        ...fields,
        disabledReason: null,
        lastUpdated: now,
        paused: existing?.paused ?? false,
        pausedAt: existing?.pausedAt ?? null,
        resumeWindow: sameUpgrade(existing?.agentUpgradePolicy, fields.agentUpgradePolicy)
          ? (existing?.resumeWindow ?? null)
          : null,
        failuresCountedSince: reEnabled ? now : (existing?.failuresCountedSince ?? null),
      });
      const happened: PolicyEvent[] = [{ event: 'published', actor: principalId(actor) }];
      if (existing && existing.enabled !== fields.enabled)
        happened.push({
          event: fields.enabled ? 'enabled' : 'disabled',
          actor: principalId(actor),
          reason: reEnabled
            ? 'only failures from now on count towards failureThreshold'
            : 'republished disabled',
        });
      const policy = await this.events.record(manager, saved, happened, existing ? 'updated' : 'created');
      return { created: !existing, policy };
    });
  }

  /** Refuses an upgrade to a version no package has, naming it and the archs of the nodes it selects. */
  async requirePackage(manager: EntityManager, policy: SelectedUpgrade): Promise<void> {
    // Share-locked: a removal of the package under way waits for this policy, and then refuses.
    const missing = await this.missingPackage(manager, policy, true);
    if (missing) throw upgradePackageMissing(missing.why, missing.version, missing.archs);
  }

  /** Why no node the policy selects could enact its upgrade, with the nodes; null when one could. */
  async missingPackage(
    manager: EntityManager,
    policy: SelectedUpgrade,
    lockPackages = false,
  ): Promise<{ why: string; version: string; archs: string[]; nodes: string[] } | null> {
    if (!policy.agentUpgradePolicy) return null;
    const packages = await manager.find(AgentPackageEntity, {
      select: { version: true },
      ...(lockPackages && { lock: { mode: 'pessimistic_read' as const } }),
    });
    const published = packages.map((each) => each.version);
    if (missingPackage(policy.agentUpgradePolicy, published, []) === null) return null;
    const selects = compileSelector(policy);
    const nodes = (
      await manager.find(NodeEntity, {
        where: { org: policy.org },
        select: { org: true, id: true, pattern: true, policy: true },
        order: { id: 'ASC' },
      })
    ).filter(selects);
    const archs = [...new Set(nodes.map(archOf))].sort();
    return {
      why: missingPackage(policy.agentUpgradePolicy, published, archs)!,
      version: policy.agentUpgradePolicy.atLeastVersion,
      archs,
      nodes: nodes.map((node) => node.id),
    };
  }

  async get(org: string, name: string): Promise<ManagementPolicyResponse> {
    return ManagementPolicyResponse.from(await this.require(this.dataSource.manager, org, name));
  }

  async list(org: string): Promise<ManagementPolicyListResponse> {
    await this.orgs.require(this.dataSource.manager, org);
    const policies = await this.dataSource.manager.find(ManagementPolicyEntity, {
      where: { org },
      order: { name: 'ASC' },
    });
    return { items: policies.map(ManagementPolicyResponse.from), total: policies.length };
  }

  /**
   * Removes the policy and its nodes' live statuses; its history stays. Answers the HA groups its
   * failed members leave halted: the halt outlives the policy (the member is still down).
   */
  async remove(actor: Principal, org: string, name: string): Promise<PolicyRemovedResponse> {
    return this.dataSource.transaction(async (manager) => {
      await this.require(manager, org, name);
      const leftHalted = await haltedMembers(manager, org, name);
      await manager.delete(ManagementPolicyEntity, { org, name });
      await this.events.removed(manager, org, name, principalId(actor));
      return { nmp: name, leftHalted: leftHalted.map((member) => HaltedMemberResponse.from(member)) };
    });
  }

  /** The nodes the policy selects (it applies to them once enabled). */
  async appliesTo(org: string, name: string): Promise<AppliesToResponse> {
    const nmp = await this.require(this.dataSource.manager, org, name);
    const selects = compileSelector(nmp);
    const nodes = await this.dataSource.manager.find(NodeEntity, {
      where: { org },
      select: { org: true, id: true, pattern: true, policy: true },
      order: { id: 'ASC' },
    });
    const items = nodes.filter(selects).map((node) => node.id);
    return { enabled: nmp.enabled, items, total: items.length };
  }

  async require(manager: EntityManager, org: string, name: string): Promise<ManagementPolicyEntity> {
    const nmp = await manager.findOne(ManagementPolicyEntity, { where: { org, name } });
    if (!nmp) throw managementPolicyNotFound(org, name);
    return nmp;
  }
}

type SelectedUpgrade = Parameters<typeof compileSelector>[0] & {
  agentUpgradePolicy: AgentUpgradePolicy | null;
};

function sameUpgrade(a: AgentUpgradePolicy | null | undefined, b: AgentUpgradePolicy | null): boolean {
  if (!a || !b) return !a && !b;
  return (
    a.atLeastVersion === b.atLeastVersion &&
    a.start === b.start &&
    a.duration === b.duration &&
    a.action === b.action &&
    (a.allowDowngrade ?? false) === (b.allowDowngrade ?? false)
  );
}

function withDefaults(policy: Partial<AgentUpgradePolicy>): AgentUpgradePolicy {
  return {
    atLeastVersion: policy.atLeastVersion ?? 'current',
    start: policy.start ?? 'now',
    duration: policy.duration ?? 0,
    action: policy.action ?? 'install',
    ...(policy.location && { location: policy.location }),
    // Stored only when set: a policy that only moves up reads as it always did.
    ...(policy.allowDowngrade === true && { allowDowngrade: true }),
  };
}
