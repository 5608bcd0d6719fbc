/**
 * Says what happened to a management policy — published, enabled, disabled (with the reason),
 * paused, resumed, reset, removed — in the change log (a managementPolicy change carrying the
 * event, so agents and the agbot learn of it) and in the policy's history, in the caller's
 * transaction.
 */
import { type ManagementPolicyEvent } from '@careen/contracts';
import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { RolloutHistory } from '../rollout-history/rollout-history';
import { ManagementPolicyResponse } from './dto/management-policy.response';
import { type ManagementPolicyEntity } from './management-policy.entity';

export interface PolicyEvent {
  event: ManagementPolicyEvent;
  reason?: string | null;
  /** Who did it; absent when the exchange did it itself (a failure threshold). */
  actor?: string | null;
}

@Injectable()
export class PolicyEvents {
  constructor(
    private readonly changes: ChangeRecorder,
    private readonly history: RolloutHistory,
  ) {}

  /**
   * Records the policy as it is now, with what happened to it: one change, named after the last
   * (most telling) event — a republish that disables is `disabled` — and every event in history.
   */
  async record(
    manager: EntityManager,
    policy: ManagementPolicyEntity,
    happened: readonly PolicyEvent[],
    operation: 'created' | 'updated' = 'updated',
  ): Promise<ManagementPolicyResponse> {
    const response = ManagementPolicyResponse.from(policy);
    await this.changes.record(manager, {
      org: policy.org,
      resource: 'managementPolicy',
      resourceId: policy.name,
      operation,
      event: happened.at(-1)?.event,
      data: response,
      byCareen: happened.every((each) => !each.actor),
    });
    for (const { event, reason, actor } of happened)
      await this.history.recordPolicyEvent(manager, {
        org: policy.org,
        nmp: policy.name,
        event,
        reason,
        actor,
      });
    return response;
  }

  /** Records the policy's removal; its history stays. */
  async removed(manager: EntityManager, org: string, name: string, actor: string): Promise<void> {
    await this.changes.record(manager, {
      org,
      resource: 'managementPolicy',
      resourceId: name,
      operation: 'deleted',
      event: 'removed',
    });
    await this.history.recordPolicyEvent(manager, { org, nmp: name, event: 'removed', actor });
  }
}
