/**
 * Node management policies: published (created or replaced), read, deleted, and the nodes
 * each selects. `enabled` defaults to false; an enabled policy that would select every node
 * is refused unless the publisher confirms with `allowDisruptive`.
 */
import { principalId, type Principal } from '@careen/auth';
import { type AgentUpgradePolicy } from '@careen/contracts';
import { compileSelector, disruptiveReason } from '@careen/policy';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NodeEntity } from '../nodes/node.entity';
import { OrgsService } from '../orgs/orgs.service';
import { type ManagementPolicyDto } from './dto/management-policy.dto';
import {
  type AppliesToResponse,
  type ManagementPolicyListResponse,
  ManagementPolicyResponse,
} from './dto/management-policy.response';
import { disruptiveNeedsConfirmation, managementPolicyNotFound } from './management-policies.errors';
import { ManagementPolicyEntity } from './management-policy.entity';
import { type PolicyEvent, PolicyEvents } from './policy-events';

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

  /** Removes the policy and its nodes' live statuses; its history stays. */
  async remove(actor: Principal, org: string, name: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.require(manager, org, name);
      await manager.delete(ManagementPolicyEntity, { org, name });
      await this.events.removed(manager, org, name, principalId(actor));
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

function sameUpgrade(a: AgentUpgradePolicy | null | undefined, b: AgentUpgradePolicy | null): boolean {
  if (!a || !b) return !a && !b;
  return (
    a.atLeastVersion === b.atLeastVersion &&
    a.start === b.start &&
    a.duration === b.duration &&
    a.action === b.action
  );
}

function withDefaults(policy: Partial<AgentUpgradePolicy>): AgentUpgradePolicy {
  return {
    atLeastVersion: policy.atLeastVersion ?? 'current',
    start: policy.start ?? 'now',
    duration: policy.duration ?? 0,
    action: policy.action ?? 'install',
    ...(policy.location && { location: policy.location }),
  };
}
