/**
 * Nodes of an org: registered by users (or updating themselves), listed, patched and removed;
 * their status is written only by themselves and their desired workloads by the agbot. Every
 * change is recorded on the feed in the same transaction (a status report: the same statement).
 * Never returns a token hash.
 */
import { generateSecret, hashSecret, principalId, type Principal } from '@careen/auth';
import { entityColumns, entityFromRow, NamedStatement } from '@careen/persistence';
import { NODE_STATUS_REPORTED } from '@careen/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsService } from '../orgs/orgs.service';
import { type NodeStatusDto } from './dto/node-status.dto';
import { type NodeWorkloadsDto } from './dto/node-workloads.dto';
import { NodeResponse, type NodeListResponse, type RegisteredNodeResponse } from './dto/node.response';
import { toStoredPolicy, type PolicyDto } from './dto/policy.dto';
import { type RegisterNodeDto } from './dto/register-node.dto';
import { type UpdateNodeDto } from './dto/update-node.dto';
import { assertMayModifyNode, assertNodeIsSelf } from './node-access.policy';
import { NodeEntity, type DesiredWorkload, type NodeStatus } from './node.entity';
import { nodeNotFound, nodeOnly } from './nodes.errors';

export interface NodeFilter {
  haGroup?: string;
  /** `key=value` or `key`. */
  labels?: string[];
}

/** The columns a registrant or an admin may change. */
type NodeChanges = Partial<
  Pick<NodeEntity, 'name' | 'pattern' | 'labels' | 'tags' | 'rack' | 'schedulable' | 'policy' | 'tokenHash'>
>;

export interface RegistrationResult {
  created: boolean;
  answer: RegisteredNodeResponse;
}

@Injectable()
export class NodesService {
  private statusWrite: NamedStatement | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly orgs: OrgsService,
    private readonly changes: ChangeRecorder,
  ) {}

  /** Creates the node, or updates the given fields of an existing one. */
  async register(
    actor: Principal,
    org: string,
    id: string,
    input: RegisterNodeDto,
  ): Promise<RegistrationResult> {
    assertNodeIsSelf(actor, org, id, 'update');
    const givenTokenHash = input.token === undefined ? undefined : await hashSecret(input.token);
    return this.dataSource.transaction(async (manager) => {
      const existing = await this.lockNode(manager, org, id);
      if (existing) return this.updateRegistration(manager, actor, existing, input, givenTokenHash);
      // A node only updates itself; it cannot bring itself back once deleted.
      if (actor.kind === 'node') throw nodeNotFound(org, id);
      await this.orgs.require(manager, org);
      const token = input.token ?? generateSecret();
      const inserted: unknown[] = await manager.query(
        `INSERT INTO exchange.nodes (org, id, owner, name, token_hash, pattern, policy, labels, tags, rack)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT DO NOTHING RETURNING id`,
        [
          org,
          id,
          principalId(actor),
          input.name ?? id,
          givenTokenHash ?? (await hashSecret(token)),
          input.pattern ?? null,
          JSON.stringify(toStoredPolicy(input.policy)),
          JSON.stringify(input.labels ?? {}),
          input.tags ?? [],
          input.rack ?? null,
        ],
      );
      if (inserted.length === 0) {
        // Registered concurrently by someone else: treat this request as an update.
        const raced = await this.lockNode(manager, org, id);
        if (!raced) throw nodeNotFound(org, id);
        return this.updateRegistration(manager, actor, raced, input, givenTokenHash);
      }
      await this.recordNode(manager, org, id, 'created');
      return { created: true, answer: { id, token } };
    });
  }

  private async updateRegistration(
    manager: EntityManager,
    actor: Principal,
    node: NodeEntity,
    input: RegisterNodeDto,
    tokenHash: string | undefined,
  ): Promise<RegistrationResult> {
    assertMayModifyNode(actor, node);
    await this.applyChanges(manager, node, {
      ...this.fieldChanges(input),
      ...(input.policy === undefined ? {} : { policy: toStoredPolicy(input.policy) }),
      ...(tokenHash === undefined ? {} : { tokenHash }),
    });
    await this.recordNode(manager, node.org, node.id, 'updated');
    return {
      created: false,
      answer: { id: node.id, ...(input.token === undefined ? {} : { token: input.token }) },
    };
  }

  async list(org: string, filter: NodeFilter): Promise<NodeListResponse> {
    await this.orgs.require(this.dataSource.manager, org);
    const query = this.dataSource.manager
      .createQueryBuilder(NodeEntity, 'node')
      .where('node.org = :org', { org })
      .orderBy('node.id', 'ASC');
    if (filter.haGroup !== undefined) query.andWhere('node.ha_group = :haGroup', { haGroup: filter.haGroup });
    (filter.labels ?? []).forEach((selector, index) => {
      const separator = selector.indexOf('=');
      if (separator < 0) {
        query.andWhere(`node.labels ? :labelKey${index}`, { [`labelKey${index}`]: selector });
      } else {
        query.andWhere(`node.labels @> :labels${index}::jsonb`, {
          [`labels${index}`]: JSON.stringify({
            [selector.slice(0, separator)]: selector.slice(separator + 1),
          }),
        });
      }
    });
    const nodes = await query.getMany();
    return { items: nodes.map(NodeResponse.from), total: nodes.length };
  }

  async get(actor: Principal, org: string, id: string): Promise<NodeResponse> {
    assertNodeIsSelf(actor, org, id, 'read');
    return NodeResponse.from(await this.require(this.dataSource.manager, org, id));
  }

  async update(actor: Principal, org: string, id: string, input: UpdateNodeDto): Promise<NodeResponse> {
    return this.dataSource.transaction(async (manager) => {
      const node = await this.requireLocked(manager, org, id);
      assertMayModifyNode(actor, node);
      await this.applyChanges(manager, node, {
        ...this.fieldChanges(input),
        ...(input.schedulable === undefined ? {} : { schedulable: input.schedulable }),
      });
      return this.recordNode(manager, org, id, 'updated');
    });
  }

  async replacePolicy(actor: Principal, org: string, id: string, policy: PolicyDto): Promise<NodeResponse> {
    assertNodeIsSelf(actor, org, id, 'change the policy of');
    return this.dataSource.transaction(async (manager) => {
      const node = await this.requireLocked(manager, org, id);
      assertMayModifyNode(actor, node);
      await manager.update(NodeEntity, { org, id }, { policy: toStoredPolicy(policy) });
      return this.recordNode(manager, org, id, 'updated');
    });
  }

  /** Only the node itself reports its status; the heartbeat time is the exchange's clock. */
  async reportStatus(actor: Principal, org: string, id: string, input: NodeStatusDto): Promise<NodeResponse> {
    if (actor.kind !== 'node') throw nodeOnly('only the node itself writes its status');
    assertNodeIsSelf(actor, org, id, 'write the status of');
    const status: NodeStatus = {
      lastHeartbeat: new Date().toISOString(),
      ...(input.agentVersion ? { agentVersion: { ...input.agentVersion } } : {}),
      workloads: (input.workloads ?? []).map((workload) => ({
        ...(workload.deploymentPolicy ? { deploymentPolicy: workload.deploymentPolicy } : {}),
        service: {
          org: workload.service.org,
          url: workload.service.url,
          version: workload.service.version,
        },
        ...(workload.state ? { state: workload.state } : {}),
      })),
    };
    const node = await this.writeStatus(org, id, status);
    if (!node) throw nodeNotFound(org, id);
    return NodeResponse.from(node);
  }

  async desiredWorkloads(actor: Principal, org: string, id: string): Promise<DesiredWorkload[]> {
    assertNodeIsSelf(actor, org, id, 'read the workloads of');
    return (await this.require(this.dataSource.manager, org, id)).desiredWorkloads;
  }

  async replaceDesiredWorkloads(
    org: string,
    id: string,
    input: NodeWorkloadsDto,
  ): Promise<DesiredWorkload[]> {
    const workloads: DesiredWorkload[] = input.workloads.map((workload) => ({
      deploymentPolicy: workload.deploymentPolicy,
      service: { org: workload.service.org, url: workload.service.url, version: workload.service.version },
    }));
    return this.dataSource.transaction(async (manager) => {
      await this.requireLocked(manager, org, id);
      await manager.update(NodeEntity, { org, id }, { desiredWorkloads: workloads });
      await this.recordNode(manager, org, id, 'updated');
      return workloads;
    });
  }

  async remove(actor: Principal, org: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const node = await this.requireLocked(manager, org, id);
      assertMayModifyNode(actor, node);
      await manager.delete(NodeEntity, { org, id });
      await this.changes.record(manager, { org, resource: 'node', resourceId: id, operation: 'deleted' });
    });
  }

  private async applyChanges(manager: EntityManager, node: NodeEntity, changes: NodeChanges): Promise<void> {
    // An empty change still counts as an update (updated_at moves), never as an empty SET.
    await manager.update(
      NodeEntity,
      { org: node.org, id: node.id },
      Object.keys(changes).length > 0 ? changes : { updatedAt: new Date() },
    );
  }

  private fieldChanges(input: UpdateNodeDto | RegisterNodeDto): NodeChanges {
    return {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.pattern === undefined ? {} : { pattern: input.pattern }),
      ...(input.labels === undefined ? {} : { labels: input.labels }),
      ...(input.tags === undefined ? {} : { tags: input.tags }),
      ...(input.rack === undefined ? {} : { rack: input.rack }),
    };
  }

  /** Publishes the node as it is now, through the outbox of `manager`'s transaction. */
  private async recordNode(
    manager: EntityManager,
    org: string,
    id: string,
    operation: 'created' | 'updated',
  ): Promise<NodeResponse> {
    const node = NodeResponse.from(await this.require(manager, org, id));
    await this.changes.record(manager, { org, resource: 'node', resourceId: id, operation, data: node });
    return node;
  }

  private lockNode(manager: EntityManager, org: string, id: string): Promise<NodeEntity | null> {
    return manager.findOne(NodeEntity, { where: { org, id }, lock: { mode: 'pessimistic_write' } });
  }

  private async requireLocked(manager: EntityManager, org: string, id: string): Promise<NodeEntity> {
    const node = await this.lockNode(manager, org, id);
    if (!node) throw nodeNotFound(org, id);
    return node;
  }

  private async require(manager: EntityManager, org: string, id: string): Promise<NodeEntity> {
    const node = await manager.findOne(NodeEntity, { where: { org, id } });
    if (!node) throw nodeNotFound(org, id);
    return node;
  }

  /**
   * Writes the node's status, records the change and answers the row as it is now, in one named
   * statement that needs no transaction (every report of a fleet passes here; the update locks
   * the row itself and answers it, so a report costs no read of its own); undefined when there is
   * no such node.
   */
  private async writeStatus(org: string, id: string, status: NodeStatus): Promise<NodeEntity | undefined> {
    this.statusWrite ??= new NamedStatement(
      'node-status-write',
      `WITH written AS (
         UPDATE exchange.nodes SET status = $3, updated_at = now() WHERE org = $1 AND id = $2
         RETURNING ${entityColumns(this.dataSource, NodeEntity)}),
       recorded AS (${this.changes.sql('written', NodeResponse.sql('written'), 4)})
       SELECT ${entityColumns(this.dataSource, NodeEntity, 'written')} FROM written`,
    );
    const manager = this.dataSource.manager;
    const [row] = await this.statusWrite.run<Record<string, unknown>[]>(manager, [
      org,
      id,
      JSON.stringify(status),
      ...this.changes.values({
        org,
        resource: 'node',
        resourceId: id,
        operation: 'updated',
        byNode: true,
        event: NODE_STATUS_REPORTED,
      }),
    ]);
    if (!row) return undefined;
    this.changes.written(manager);
    return entityFromRow(manager, NodeEntity, row);
  }
}
