/**
 * Per-node management status: written by the node itself as it enacts a policy (an admin may
 * only write `reset`, to ask for a retry, one node at a time or many at once), read by users and
 * the node, listed and rolled up per policy. The rules of a write are the writer's.
 */
import { principalId, type Principal } from '@careen/auth';
import { FAILED_STATUSES, MANAGEMENT_STATUSES, managementPolicyState } from '@careen/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, In, MoreThan, type EntityManager } from 'typeorm';
import { resetNeedsOneChoice } from '../management-policies/management-policies.errors';
import { type ResetRolloutDto } from '../management-policies/dto/rollout-control.dto';
import { type ResetResponse } from '../management-policies/dto/management-policy.response';
import { ManagementPoliciesService } from '../management-policies/management-policies.service';
import { PolicyEvents } from '../management-policies/policy-events';
import { NodeEntity } from '../nodes/node.entity';
import { nodeNotFound } from '../nodes/nodes.errors';
import { type ManagementStatusDto } from './dto/management-status.dto';
import { type ManagementStatusPageQuery } from './dto/management-status-page.query';
import {
  type ManagementStatusPageResponse,
  ManagementStatusResponse,
  type StatusRollupResponse,
} from './dto/management-status.response';
import { ManagementStatusEntity } from './management-status.entity';
import { managementStatusNotFound, notYourStatus } from './management-status.errors';
import { ManagementStatusWriter } from './management-status.writer';

/** Where each status stands in a rollup: in the order nodes go through them. */
const STATUS_ORDER = new Map<string, number>(MANAGEMENT_STATUSES.map((status, index) => [status, index]));

@Injectable()
export class ManagementStatusService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policies: ManagementPoliciesService,
    private readonly writer: ManagementStatusWriter,
    private readonly events: PolicyEvents,
  ) {}

  async put(
    actor: Principal,
    org: string,
    node: string,
    nmp: string,
    input: ManagementStatusDto,
  ): Promise<ManagementStatusResponse> {
    assertMayWrite(actor, node, input);
    return this.writer.write(this.dataSource.manager, actor, org, node, nmp, input);
  }

  async get(actor: Principal, org: string, node: string, nmp: string): Promise<ManagementStatusResponse> {
    if (actor.kind === 'node' && actor.node !== node)
      throw notYourStatus('a node may read only its own management status');
    const status = await this.dataSource.manager.findOne(ManagementStatusEntity, {
      where: { org, node, nmp },
    });
    if (!status) throw managementStatusNotFound(org, node, nmp);
    return ManagementStatusResponse.from(status);
  }

  /** The policy's nodes by status, in the order nodes go through them. */
  async rollup(org: string, nmp: string): Promise<StatusRollupResponse> {
    const policy = await this.policies.require(this.dataSource.manager, org, nmp);
    const rows: { status: string; count: string; counted: string }[] = await this.dataSource.query(
      `SELECT status, count(*)::text AS count,
              count(*) FILTER (WHERE $3::timestamptz IS NULL OR updated_at >= $3)::text AS counted
       FROM exchange.management_statuses WHERE org = $1 AND nmp = $2 GROUP BY status`,
      [org, nmp, policy.failuresCountedSince],
    );
    rows.sort((a, b) => (STATUS_ORDER.get(a.status) ?? 99) - (STATUS_ORDER.get(b.status) ?? 99));
    const counts = Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    const missing = policy.enabled
      ? await this.policies.missingPackage(this.dataSource.manager, policy)
      : null;
    const noPackage = missing ? await this.unreported(org, nmp, missing.nodes) : [];
    if (noPackage.length > 0) counts['no-package'] = noPackage.length;
    const total = rows.reduce((sum, row) => sum + Number(row.count), 0);
    const failed = rows
      .filter((row) => FAILED_STATUSES.includes(row.status as (typeof FAILED_STATUSES)[number]))
      .reduce((sum, row) => sum + Number(row.counted), 0);
    return {
      nmp,
      counts,
      total,
      failed,
      enabled: policy.enabled,
      paused: policy.paused,
      state: managementPolicyState(policy),
      disabledReason: policy.disabledReason,
      failuresCountedSince: policy.failuresCountedSince?.toISOString() ?? null,
      missingPackage: missing?.why ?? null,
      noPackage,
    };
  }

  /** Of `nodes`, those with no status for the policy: they wait for a package that is not there. */
  private async unreported(org: string, nmp: string, nodes: readonly string[]): Promise<string[]> {
    if (nodes.length === 0) return [];
    const reported = await this.dataSource.manager.find(ManagementStatusEntity, {
      where: { org, nmp, node: In([...nodes]) },
      select: { node: true },
    });
    const seen = new Set(reported.map((row) => row.node));
    return nodes.filter((node) => !seen.has(node));
  }

  /** One page of the policy's nodes' statuses, by node id. */
  async page(
    org: string,
    nmp: string,
    query: ManagementStatusPageQuery,
  ): Promise<ManagementStatusPageResponse> {
    const manager = this.dataSource.manager;
    await this.policies.require(manager, org, nmp);
    const limit = query.limit ?? 500;
    const [rows, total] = await Promise.all([
      manager.find(ManagementStatusEntity, {
        where: { org, nmp, ...(query.after ? { node: MoreThan(query.after) } : {}) },
        order: { node: 'ASC' },
        take: limit + 1,
      }),
      manager.count(ManagementStatusEntity, { where: { org, nmp } }),
    ]);
    const items = rows.slice(0, limit).map(ManagementStatusResponse.from);
    return { items, total, next: rows.length > limit ? items.at(-1)!.node : null };
  }

  /**
   * Sets the chosen nodes' status to `reset`, asking each to enact the policy again (even at a
   * version that failed there) and ending a halt of its HA group. `nodes`: those; `failed`:
   * every node whose status counts as failed; neither: every node with a status for the policy.
   */
  async reset(actor: Principal, org: string, nmp: string, input: ResetRolloutDto): Promise<ResetResponse> {
    if (input.nodes && input.failed) throw resetNeedsOneChoice();
    return this.dataSource.transaction(async (manager) => {
      const policy = await this.policies.require(manager, org, nmp);
      const nodes = input.nodes
        ? await existingNodes(manager, org, input.nodes)
        : await this.writer.nodesOf(manager, org, nmp, input.failed ? FAILED_STATUSES : undefined);
      for (const node of nodes) await this.writer.write(manager, actor, org, node, nmp, { status: 'reset' });
      await this.events.record(manager, policy, [
        { event: 'reset', actor: principalId(actor), reason: `${nodes.length} node(s): ${nodes.join(', ')}` },
      ]);
      return { nmp, nodes, total: nodes.length };
    });
  }
}

async function existingNodes(manager: EntityManager, org: string, ids: readonly string[]): Promise<string[]> {
  const found = new Set(
    (await manager.find(NodeEntity, { where: { org, id: In([...ids]) }, select: { id: true } })).map(
      (node) => node.id,
    ),
  );
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw nodeNotFound(org, missing);
  return [...ids].sort();
}

/**
 * A node writes only its own statuses; an admin (the route needs one) may only ask for a retry
 * with `reset`.
 */
function assertMayWrite(actor: Principal, node: string, input: ManagementStatusDto): void {
  if (actor.kind === 'node') {
    if (actor.node !== node) throw notYourStatus('a node may write only its own management status');
    return;
  }
  if (input.status !== 'reset')
    throw notYourStatus('an admin may only set a management status to "reset"; the node reports the rest');
}
