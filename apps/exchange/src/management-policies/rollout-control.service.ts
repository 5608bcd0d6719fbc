/**
 * Steering a management policy's rollout: pause (nodes that have not started wait; nodes
 * installing finish or roll back) and resume (re-enabling a disabled policy too, spreading the
 * nodes left over a window rather than starting them all at once). Each writes the policy row
 * under a lock that a node's step-start status waits for, so no node starts a step after a
 * pause commits. (Resetting nodes is the management statuses' business.)
 */
import { principalId, type Principal } from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ManagementPolicyResponse } from './dto/management-policy.response';
import { managementPolicyDisabled, managementPolicyNotFound } from './management-policies.errors';
import { ManagementPolicyEntity } from './management-policy.entity';
import { ManagementPoliciesService } from './management-policies.service';
import { PolicyEvents } from './policy-events';
import { resumeWindow } from './resume-window';

@Injectable()
export class RolloutControlService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: PolicyEvents,
    private readonly policies: ManagementPoliciesService,
  ) {}

  /** Pauses an enabled policy's rollout; pausing a paused one changes nothing. */
  async pause(actor: Principal, org: string, name: string): Promise<ManagementPolicyResponse> {
    return this.dataSource.transaction(async (manager) => {
      const policy = await lockPolicy(manager, org, name);
      if (!policy.enabled) throw managementPolicyDisabled(org, name);
      if (policy.paused) return ManagementPolicyResponse.from(policy);
      Object.assign(policy, { paused: true, pausedAt: new Date() });
      await manager.save(ManagementPolicyEntity, policy);
      return this.events.record(manager, policy, [{ event: 'paused', actor: principalId(actor) }]);
    });
  }

  /**
   * Resumes a paused policy, or re-enables a disabled one (only failures from now on count
   * towards its failureThreshold). The nodes that had not started are spread over `window`
   * seconds from now, or what was left of the policy's window. Resuming an active policy
   * changes nothing; re-enabling an upgrade whose package is gone is refused as publishing is.
   */
  async resume(
    actor: Principal,
    org: string,
    name: string,
    window?: number,
  ): Promise<ManagementPolicyResponse> {
    return this.dataSource.transaction(async (manager) => {
      const policy = await lockPolicy(manager, org, name);
      if (policy.enabled && !policy.paused) return ManagementPolicyResponse.from(policy);
      const now = new Date();
      const reEnabled = !policy.enabled;
      if (reEnabled) await this.policies.requirePackage(manager, policy);
      Object.assign(policy, {
        resumeWindow: resumeWindow(
          { ...policy, stoppedAt: policy.paused ? policy.pausedAt : null },
          now,
          window,
        ),
        enabled: true,
        paused: false,
        pausedAt: null,
        disabledReason: null,
        failuresCountedSince: reEnabled ? now : policy.failuresCountedSince,
      });
      await manager.save(ManagementPolicyEntity, policy);
      const spread = `the nodes that had not started are spread over ${policy.resumeWindow!.duration} s from ${policy.resumeWindow!.start}`;
      return this.events.record(manager, policy, [
        {
          event: reEnabled ? 'enabled' : 'resumed',
          actor: principalId(actor),
          reason: reEnabled
            ? `re-enabled: only failures from now on count towards failureThreshold; ${spread}`
            : spread,
        },
      ]);
    });
  }
}

/** The policy, locked against concurrent pauses, resumes, publishes and step starts. */
async function lockPolicy(
  manager: EntityManager,
  org: string,
  name: string,
): Promise<ManagementPolicyEntity> {
  const policy = await manager.findOne(ManagementPolicyEntity, {
    where: { org, name },
    lock: { mode: 'pessimistic_write' },
  });
  if (!policy) throw managementPolicyNotFound(org, name);
  return policy;
}
