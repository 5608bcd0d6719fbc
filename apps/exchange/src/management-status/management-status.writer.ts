/**
 * Writes one node's status for one management policy, in the caller's transaction: the rules
 * every write obeys, whoever makes it (the node reporting, an admin resetting).
 *
 * - A node starting a new step (`downloading`, `initiated`) of a policy that is disabled or
 *   paused is refused. The write share-locks the policy row, which a pause, a publish or a
 *   threshold stop must lock exclusively, so no step starts after one of those commits.
 * - Statuses of different nodes are written concurrently (ordinary ones take the lightest lock,
 *   shared with each other); failures queue behind one another, so that each counts every
 *   failure committed before it, and the one that reaches failureThreshold disables the policy.
 * - Each write is one statement (an agent's retry racing its own slow first write lands last),
 *   knows its attempt (a new one begins when a node waits or downloads again after an end) and
 *   is kept in the history by that same statement.
 */
import { principalId, type Principal } from '@careen/auth';
import {
  FAILED_STATUSES,
  managementPolicyState,
  STEP_START_STATUSES,
  type ManagementStatusValue,
} from '@careen/contracts';
import { entityColumns, entityFromRow, NamedStatement } from '@careen/persistence';
import { Injectable } from '@nestjs/common';
import { In, MoreThanOrEqual, type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import {
  managementPolicyNotFound,
  managementPolicyStopped,
} from '../management-policies/management-policies.errors';
import { ManagementPolicyEntity } from '../management-policies/management-policy.entity';
import { PolicyEvents } from '../management-policies/policy-events';
import { NodeEntity } from '../nodes/node.entity';
import { nodeNotFound } from '../nodes/nodes.errors';
import { statusHistoryInsert } from '../rollout-history/rollout-history';
import { type ManagementStatusDto } from './dto/management-status.dto';
import { ManagementStatusResponse } from './dto/management-status.response';
import { ManagementStatusEntity } from './management-status.entity';

/** Statuses within one attempt: a `waiting` or `downloading` after anything else begins a new one. */
const WITHIN_AN_ATTEMPT: readonly ManagementStatusValue[] = [
  'waiting',
  'paused',
  'downloading',
  'downloaded',
  'ha-waiting',
];
const ATTEMPT_STARTS: readonly ManagementStatusValue[] = ['waiting', 'downloading'];

/**
 * The status written and kept in the history in one statement: $1–$9 the row, $10 the statuses
 * that begin an attempt, $11 those within one, $12 who wrote it when not the node itself.
 */
const UPSERT_KEPT_IN_HISTORY = new NamedStatement(
  'management-status-write',
  `WITH written AS (
       INSERT INTO exchange.management_statuses AS s
         (org, node, nmp, status, version, start_time, end_time, error, from_version, attempt, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, now())
       ON CONFLICT (org, node, nmp) DO UPDATE SET status = EXCLUDED.status, version = EXCLUDED.version,
         start_time = EXCLUDED.start_time, end_time = EXCLUDED.end_time, error = EXCLUDED.error,
         attempt = s.attempt + (CASE WHEN EXCLUDED.status = ANY($10) AND NOT s.status = ANY($11) THEN 1 ELSE 0 END),
         from_version = CASE WHEN EXCLUDED.status = ANY($10) AND NOT s.status = ANY($11)
                             THEN EXCLUDED.from_version
                             ELSE coalesce(EXCLUDED.from_version, s.from_version) END,
         updated_at = now()
       RETURNING s.org, s.node, s.nmp, s.status, s.version, s.from_version, s.attempt, s.error, s.updated_at),
       kept AS (${statusHistoryInsert('written', '$12::text')})
       SELECT updated_at, attempt, from_version FROM written`,
);

/** How a write locks its policy's row (see the class's notes). */
type PolicyLock = 'NO KEY UPDATE' | 'SHARE' | 'KEY SHARE';

@Injectable()
export class ManagementStatusWriter {
  private readonly policyLocks = new Map<PolicyLock, NamedStatement>();

  constructor(
    private readonly changes: ChangeRecorder,
    private readonly events: PolicyEvents,
  ) {}

  async write(
    manager: EntityManager,
    actor: Principal,
    org: string,
    node: string,
    nmp: string,
    input: ManagementStatusDto,
  ): Promise<ManagementStatusResponse> {
    const failed = FAILED_STATUSES.includes(input.status);
    const startsStep = STEP_START_STATUSES.includes(input.status);
    const policy = await this.lockPolicy(
      manager,
      org,
      node,
      nmp,
      // FOR SHARE waits for a pause or a threshold stop in flight.
      failed ? 'NO KEY UPDATE' : startsStep ? 'SHARE' : 'KEY SHARE',
    );
    const state = managementPolicyState(policy);
    if (startsStep && state !== 'active') throw managementPolicyStopped(org, nmp, state);
    const written = await this.upsert(manager, org, node, nmp, input, actor);
    const status = ManagementStatusResponse.from(written);
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
  }

  /** The nodes with a status for the policy (only those in `statuses`, when given), by id. */
  async nodesOf(
    manager: EntityManager,
    org: string,
    nmp: string,
    statuses?: readonly ManagementStatusValue[],
  ): Promise<string[]> {
    const rows = await manager.find(ManagementStatusEntity, {
      where: { org, nmp, ...(statuses ? { status: In([...statuses]) } : {}) },
      select: { node: true },
      order: { node: 'ASC' },
    });
    return rows.map((row) => row.node);
  }

  private async upsert(
    manager: EntityManager,
    org: string,
    node: string,
    nmp: string,
    input: ManagementStatusDto,
    actor: Principal,
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
    const [written] = await UPSERT_KEPT_IN_HISTORY.run<
      { updated_at: Date; attempt: number; from_version: string | null }[]
    >(manager, [
      org,
      node,
      nmp,
      row.status,
      row.version,
      row.startTime,
      row.endTime,
      row.error,
      input.fromVersion ?? null,
      ATTEMPT_STARTS,
      WITHIN_AN_ATTEMPT,
      actor.kind === 'node' ? null : principalId(actor),
    ]);
    return {
      ...row,
      updatedAt: written!.updated_at,
      attempt: written!.attempt,
      fromVersion: written!.from_version,
    };
  }

  /**
   * Locks the policy and answers it, having asked in the same statement whether the node
   * exists: a node that does not is refused first, as before any policy is looked at. Written in
   * SQL: every status a fleet reports passes here.
   */
  private async lockPolicy(
    manager: EntityManager,
    org: string,
    node: string,
    nmp: string,
    mode: PolicyLock,
  ): Promise<ManagementPolicyEntity> {
    const [row] = await this.policyLock(manager, mode).run<
      (Record<string, unknown> & { node_exists: boolean })[]
    >(manager, [org, node, nmp]);
    const nodeExists = row ? row.node_exists : await manager.exists(NodeEntity, { where: { org, id: node } });
    if (!nodeExists) throw nodeNotFound(org, node);
    if (!row) throw managementPolicyNotFound(org, nmp);
    return entityFromRow(manager, ManagementPolicyEntity, row);
  }

  /** The policy read under `mode`, one named statement per mode. */
  private policyLock(manager: EntityManager, mode: PolicyLock): NamedStatement {
    let statement = this.policyLocks.get(mode);
    if (!statement) {
      statement = new NamedStatement(
        `management-status-policy-${mode.toLowerCase().replaceAll(' ', '-')}`,
        `SELECT ${entityColumns(manager.connection, ManagementPolicyEntity, 'p')},
                EXISTS (SELECT 1 FROM exchange.nodes AS n WHERE n.org = $1 AND n.id = $2) AS node_exists
         FROM exchange.management_policies AS p
         WHERE p.org = $1 AND p.name = $3
         FOR ${mode} OF p`,
      );
      this.policyLocks.set(mode, statement);
    }
    return statement;
  }

  /** Counts only failures since the policy was last enabled again. */
  private async disableIfThresholdReached(
    manager: EntityManager,
    policy: ManagementPolicyEntity,
  ): Promise<void> {
    if (!policy.enabled || policy.failureThreshold === null) return;
    const failed = await manager.count(ManagementStatusEntity, {
      where: {
        org: policy.org,
        nmp: policy.name,
        status: In([...FAILED_STATUSES]),
        ...(policy.failuresCountedSince ? { updatedAt: MoreThanOrEqual(policy.failuresCountedSince) } : {}),
      },
    });
    if (failed < policy.failureThreshold) return;
    const since = policy.failuresCountedSince
      ? ` since it was re-enabled at ${policy.failuresCountedSince.toISOString()}`
      : '';
    const disabledReason = `disabled by the exchange: ${failed} of its nodes failed${since} (failureThreshold ${policy.failureThreshold})`;
    Object.assign(policy, { enabled: false, disabledReason, lastUpdated: new Date() });
    await manager.update(
      ManagementPolicyEntity,
      { org: policy.org, name: policy.name },
      { enabled: false, disabledReason, lastUpdated: policy.lastUpdated },
    );
    await this.events.record(manager, policy, [{ event: 'disabled', reason: disabledReason }]);
  }
}
