/**
 * Per-node management status: written by the node itself as it enacts a policy (an admin may
 * only write `reset`, to ask for a retry), read by users and the node, rolled up per policy.
 * When a policy's failed nodes reach its failureThreshold, the policy is disabled in the same
 * transaction, with the reason recorded, so a bad package stops spreading. Statuses of
 * different nodes are written concurrently; only failures are counted one at a time.
 */
import { type Principal } from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { ManagementPoliciesService } from '../management-policies/management-policies.service';
import { ManagementPolicyEntity } from '../management-policies/management-policy.entity';
import { managementPolicyNotFound } from '../management-policies/management-policies.errors';
import { ManagementPolicyResponse } from '../management-policies/dto/management-policy.response';
import { NodeEntity } from '../nodes/node.entity';
import { nodeNotFound } from '../nodes/nodes.errors';
import { type ManagementStatusDto } from './dto/management-status.dto';
import { ManagementStatusResponse, type StatusRollupResponse } from './dto/management-status.response';
import { ManagementStatusEntity } from './management-status.entity';
import { managementStatusNotFound, notYourStatus } from './management-status.errors';
import { FAILED_STATUSES } from '@careen/contracts';

@Injectable()
export class ManagementStatusService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policies: ManagementPoliciesService,
    private readonly changes: ChangeRecorder,
  ) {}

  async put(
    actor: Principal,
    org: string,
    node: string,
    nmp: string,
    input: ManagementStatusDto,
  ): Promise<ManagementStatusResponse> {
    assertMayWrite(actor, node, input);
    return this.dataSource.transaction(async (manager) => {
      if (!(await manager.exists(NodeEntity, { where: { org, id: node } }))) throw nodeNotFound(org, node);
      const failed = FAILED_STATUSES.includes(input.status);
      const policy = await this.lockPolicy(manager, org, nmp, failed);
      const status = ManagementStatusResponse.from(await this.upsert(manager, org, node, nmp, input));
      await this.changes.record(manager, {
        org,
        resource: 'managementStatus',
        resourceId: node,
        operation: 'updated',
        data: status,
        byNode: actor.kind === 'node',
      });
      if (failed) await this.disableIfThresholdReached(manager, policy);
      return status;
    });
  }

  async get(org: string, node: string, nmp: string): Promise<ManagementStatusResponse> {
    const status = await this.dataSource.manager.findOne(ManagementStatusEntity, {
      where: { org, node, nmp },
    });
    if (!status) throw managementStatusNotFound(org, node, nmp);
    return ManagementStatusResponse.from(status);
  }

  async rollup(org: string, nmp: string): Promise<StatusRollupResponse> {
    const policy = await this.policies.require(this.dataSource.manager, org, nmp);
    const rows: { status: string; count: string }[] = await this.dataSource.query(
      'SELECT status, count(*)::text AS count FROM exchange.management_statuses WHERE org = $1 AND nmp = $2 GROUP BY status',
      [org, nmp],
    );
    const counts = Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    const total = rows.reduce((sum, row) => sum + Number(row.count), 0);
    const failed = FAILED_STATUSES.reduce((sum, status) => sum + (counts[status] ?? 0), 0);
    return { nmp, counts, total, failed, enabled: policy.enabled, disabledReason: policy.disabledReason };
  }

  /**
   * One statement, so that two writes of the same status at once (an agent that timed out and
   * wrote again while the first was still queued) both land, the later one last.
   */
  private async upsert(
    manager: EntityManager,
    org: string,
    node: string,
    nmp: string,
    input: ManagementStatusDto,
  ): Promise<ManagementStatusEntity> {
    const row = {
      org,
      node,
      nmp,
      status: input.status,
      version: input.version ?? null,
      startTime: input.startTime ? new Date(input.startTime) : null,
      endTime: input.endTime ? new Date(input.endTime) : null,
      error: input.error ?? null,
    };
    const [written]: { updated_at: Date }[] = await manager.query(
      `INSERT INTO exchange.management_statuses (org, node, nmp, status, version, start_time, end_time, error, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
       ON CONFLICT (org, node, nmp) DO UPDATE SET status = EXCLUDED.status, version = EXCLUDED.version,
         start_time = EXCLUDED.start_time, end_time = EXCLUDED.end_time, error = EXCLUDED.error, updated_at = now()
       RETURNING updated_at`,
      [org, node, nmp, row.status, row.version, row.startTime, row.endTime, row.error],
    );
    return { ...row, updatedAt: written!.updated_at };
  }

  /**
   * Keeps the policy from being deleted under the write. A whole fleet reports against one
   * policy, so ordinary statuses take the lightest lock, which they share with each other;
   * only failures queue behind one another, so that each counts every failure committed
   * before it against the threshold.
   */
  private async lockPolicy(
    manager: EntityManager,
    org: string,
    nmp: string,
    failed: boolean,
  ): Promise<ManagementPolicyEntity> {
    const policy = await manager.findOne(ManagementPolicyEntity, {
      where: { org, name: nmp },
      lock: { mode: failed ? 'for_no_key_update' : 'for_key_share' },
    });
    if (!policy) throw managementPolicyNotFound(org, nmp);
    return policy;
  }

  private async disableIfThresholdReached(
    manager: EntityManager,
    policy: ManagementPolicyEntity,
  ): Promise<void> {
    if (!policy.enabled || policy.failureThreshold === null) return;
    const failed = await manager.count(ManagementStatusEntity, {
      where: { org: policy.org, nmp: policy.name, status: In([...FAILED_STATUSES]) },
    });
    if (failed < policy.failureThreshold) return;
    const disabledReason = `disabled by the exchange: ${failed} of its nodes failed (failureThreshold ${policy.failureThreshold})`;
    await manager.update(
      ManagementPolicyEntity,
      { org: policy.org, name: policy.name },
      { enabled: false, disabledReason, lastUpdated: new Date() },
    );
    const updated = await manager.findOneOrFail(ManagementPolicyEntity, {
      where: { org: policy.org, name: policy.name },
    });
    await this.changes.record(manager, {
      org: policy.org,
      resource: 'managementPolicy',
      resourceId: policy.name,
      operation: 'updated',
      data: ManagementPolicyResponse.from(updated),
    });
  }
}

/** A node writes only its own statuses; a user (admin) may only ask for a retry with `reset`. */
function assertMayWrite(actor: Principal, node: string, input: ManagementStatusDto): void {
  if (actor.kind === 'node') {
    if (actor.node !== node) throw notYourStatus('a node may write only its own management status');
    return;
  }
  if (actor.role === 'user')
    throw notYourStatus('only the node itself, or an org admin asking for a reset, may write this status');
  if (input.status !== 'reset')
    throw notYourStatus('an admin may only set a management status to "reset"; the node reports the rest');
}
