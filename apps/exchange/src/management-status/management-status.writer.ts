/**
 * Writes one node's status for one management policy, in the caller's transaction if it has
 * one: the rules every write obeys, whoever makes it (the node reporting, an admin resetting).
 *
 * - A node starting a new step (`downloading`, `initiated`) of a policy that is disabled or
 *   paused is refused. The write share-locks the policy row, which a pause, a publish or a
 *   threshold stop must lock exclusively, so no step starts after one of those commits.
 * - Statuses of different nodes are written concurrently (ordinary ones take the lightest lock,
 *   shared with each other); failures queue behind one another, so that each counts every
 *   failure committed before it, and the one that reaches failureThreshold disables the policy.
 * - Each write is one statement (an agent's retry racing its own slow first write lands last):
 *   it locks the policy, writes the status knowing its attempt (a new one begins when a node
 *   waits or downloads again after an end), keeps it in the history and records the change. A
 *   status other than a failure therefore needs no transaction: the fleet's reports cost one
 *   statement each, where a transaction of its parts cost six.
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

/** How a write locks its policy's row (see the class's notes). */
type PolicyLock = 'NO KEY UPDATE' | 'SHARE' | 'KEY SHARE';

/**
 * The write's answer: whether the node exists, the policy's row (all null without one), and the
 * row written (null when refused).
 */
type WriteAnswer = Record<string, unknown> & {
  node_exists: boolean;
  name: string | null;
  enabled: boolean;
  paused: boolean;
  written_at: Date | null;
  written_attempt: number | null;
  written_from_version: string | null;
};

@Injectable()
export class ManagementStatusWriter {
  private readonly statements = new Map<PolicyLock, NamedStatement>();

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
    // A failure counts those before it and may disable the policy: more than one statement, in
    // a transaction. Any other status is one statement, which needs none.
    if (failed && !manager.queryRunner?.isTransactionActive) {
      return manager.connection.transaction((inTransaction) =>
        this.write(inTransaction, actor, org, node, nmp, input),
      );
    }
    const startsStep = STEP_START_STATUSES.includes(input.status);
    // FOR SHARE waits for a pause or a threshold stop in flight.
    const mode = failed ? 'NO KEY UPDATE' : startsStep ? 'SHARE' : 'KEY SHARE';
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
    const [answer] = await this.statement(manager, mode).run<[WriteAnswer]>(manager, [
      ...[row.org, row.node, row.nmp, row.status, row.version, row.startTime, row.endTime, row.error],
      input.fromVersion ?? null,
      ATTEMPT_STARTS,
      WITHIN_AN_ATTEMPT,
      actor.kind === 'node' ? null : principalId(actor),
      startsStep,
      ...this.changes.values({
        org,
        resource: 'managementStatus',
        resourceId: node,
        operation: 'updated',
        byNode: actor.kind === 'node',
      }),
    ]);
    if (!answer.node_exists) throw nodeNotFound(org, node);
    if (answer.name === null) throw managementPolicyNotFound(org, nmp);
    if (answer.written_at === null) throw managementPolicyStopped(org, nmp, managementPolicyState(answer));
    this.changes.written(manager);
    if (failed) {
      await this.disableIfThresholdReached(manager, entityFromRow(manager, ManagementPolicyEntity, answer));
    }
    return ManagementStatusResponse.from({
      ...row,
      updatedAt: answer.written_at,
      attempt: answer.written_attempt!,
      fromVersion: answer.written_from_version,
    });
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

  /**
   * The write, one named statement per lock mode: the policy locked under `mode`, asking whether
   * the node exists; the status written and kept in the history, unless there is no such node or
   * policy, or the status starts a step ($13) of a policy that is not active; and the change
   * recorded. $1–$9 are the row, $10 the statuses that begin an attempt, $11 those within one,
   * $12 who wrote it when not the node itself, $14–$17 the change's record.
   */
  private statement(manager: EntityManager, mode: PolicyLock): NamedStatement {
    let statement = this.statements.get(mode);
    if (!statement) {
      statement = new NamedStatement(
        `management-status-write-${mode.toLowerCase().replaceAll(' ', '-')}`,
        `WITH policy AS (
             SELECT ${entityColumns(manager.connection, ManagementPolicyEntity, 'p')}
             FROM exchange.management_policies AS p
             WHERE p.org = $1 AND p.name = $3
             FOR ${mode} OF p),
           target AS (
             SELECT EXISTS (SELECT 1 FROM exchange.nodes AS n WHERE n.org = $1 AND n.id = $2) AS node_exists),
           written AS (
             INSERT INTO exchange.management_statuses AS s
               (org, node, nmp, status, version, start_time, end_time, error, from_version, attempt, updated_at)
             SELECT $1, $2, $3, $4, $5, $6::timestamptz, $7::timestamptz, $8, $9, 1, now()
             FROM policy, target
             -- A stopped policy is one disabled or paused (managementPolicyState).
             WHERE target.node_exists AND NOT ($13::boolean AND (NOT policy.enabled OR policy.paused))
             ON CONFLICT (org, node, nmp) DO UPDATE SET status = EXCLUDED.status, version = EXCLUDED.version,
               start_time = EXCLUDED.start_time, end_time = EXCLUDED.end_time, error = EXCLUDED.error,
               attempt = s.attempt + (CASE WHEN EXCLUDED.status = ANY($10) AND NOT s.status = ANY($11) THEN 1 ELSE 0 END),
               from_version = CASE WHEN EXCLUDED.status = ANY($10) AND NOT s.status = ANY($11)
                                   THEN EXCLUDED.from_version
                                   ELSE coalesce(EXCLUDED.from_version, s.from_version) END,
               updated_at = now()
             RETURNING s.org, s.node, s.nmp, s.status, s.version, s.start_time, s.end_time, s.error,
                       s.from_version, s.attempt, s.updated_at),
           kept AS (${statusHistoryInsert('written', '$12::text')}),
           recorded AS (${this.changes.sql('written', ManagementStatusResponse.sql('written'), 14)})
         SELECT target.node_exists, written.updated_at AS written_at, written.attempt AS written_attempt,
                written.from_version AS written_from_version,
                ${entityColumns(manager.connection, ManagementPolicyEntity, 'policy')}
         FROM target LEFT JOIN policy ON true LEFT JOIN written ON true`,
      );
      this.statements.set(mode, statement);
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
