/**
 * HA groups (docs/domain.md, HA groups; docs/architecture.md, invariant 3). A node is in at most
 * one group; forming or changing a group updates its members' `haGroup` in the same transaction; a
 * listed node already in another group is refused with 409 naming both; the caller must be allowed
 * to modify every node it adds or removes; joining or leaving never touches a node's workloads.
 * Member rows are locked in id order, so concurrent claims on one node serialize and exactly one
 * wins.
 */
import { type Principal } from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { assertMayModifyNode } from '../nodes/node-access.policy';
import { NodeResponse } from '../nodes/dto/node.response';
import { NodeEntity } from '../nodes/node.entity';
import { OrgsService } from '../orgs/orgs.service';
import { type CreateHaGroupDto, type ReplaceHaGroupDto } from './dto/ha-group.dto';
import { HaGroupResponse, type HaGroupListResponse } from './dto/ha-group.response';
import { HaGroupEntity } from './ha-group.entity';
import { haGroupExists, haGroupNotFound, memberNotFound, nodeInAnotherGroup } from './ha-groups.errors';

@Injectable()
export class HaGroupsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orgs: OrgsService,
    private readonly changes: ChangeRecorder,
  ) {}

  create(actor: Principal, org: string, input: CreateHaGroupDto): Promise<HaGroupResponse> {
    return this.dataSource.transaction(async (manager) => {
      await this.orgs.require(manager, org);
      const inserted: unknown[] = await manager.query(
        `INSERT INTO exchange.ha_groups (org, name, description, max_unavailable) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING name`,
        [
          org,
          input.name,
          input.description ?? '',
          input.maxUnavailable === undefined ? null : JSON.stringify(input.maxUnavailable),
        ],
      );
      if (inserted.length === 0) throw haGroupExists(org, input.name);
      await this.join(manager, actor, org, input.name, input.members);
      return this.recordGroup(manager, org, input.name, 'created');
    });
  }

  replace(actor: Principal, org: string, name: string, input: ReplaceHaGroupDto): Promise<HaGroupResponse> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockGroup(manager, org, name);
      const current = await this.lockMembers(manager, org, name);
      const wanted = new Set(input.members);
      const leaving = current.filter((node) => !wanted.has(node.id));
      await this.leave(manager, actor, org, leaving);
      const staying = new Set(current.map((node) => node.id));
      await this.join(
        manager,
        actor,
        org,
        name,
        input.members.filter((id) => !staying.has(id)),
      );
      await manager.update(
        HaGroupEntity,
        { org, name },
        { description: input.description ?? '', maxUnavailable: input.maxUnavailable ?? null },
      );
      return this.recordGroup(manager, org, name, 'updated');
    });
  }

  /** Deletes the group; its members leave it (nothing else about them changes). */
  remove(actor: Principal, org: string, name: string): Promise<void> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockGroup(manager, org, name);
      await this.leave(manager, actor, org, await this.lockMembers(manager, org, name));
      await manager.delete(HaGroupEntity, { org, name });
      await this.changes.record(manager, {
        org,
        resource: 'haGroup',
        resourceId: name,
        operation: 'deleted',
      });
    });
  }

  async get(org: string, name: string): Promise<HaGroupResponse> {
    const group = await this.dataSource.manager.findOne(HaGroupEntity, { where: { org, name } });
    if (!group) throw haGroupNotFound(org, name);
    return HaGroupResponse.from(group, await this.memberIds(this.dataSource.manager, org, name));
  }

  async list(org: string): Promise<HaGroupListResponse> {
    await this.orgs.require(this.dataSource.manager, org);
    const groups = await this.dataSource.manager.find(HaGroupEntity, {
      where: { org },
      order: { name: 'ASC' },
    });
    const rows: { ha_group: string; members: string[] }[] = await this.dataSource.query(
      `SELECT ha_group, array_agg(id ORDER BY id) AS members FROM exchange.nodes
       WHERE org = $1 AND ha_group IS NOT NULL GROUP BY ha_group`,
      [org],
    );
    const members = new Map(rows.map((row) => [row.ha_group, row.members]));
    const items = groups.map((group) => HaGroupResponse.from(group, members.get(group.name) ?? []));
    return { items, total: items.length };
  }

  private async join(
    manager: EntityManager,
    actor: Principal,
    org: string,
    group: string,
    ids: string[],
  ): Promise<void> {
    if (ids.length === 0) return;
    const nodes = await manager.find(NodeEntity, {
      where: { org, id: In(ids) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    const found = new Set(nodes.map((node) => node.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw memberNotFound(org, missing);
    for (const node of nodes) {
      assertMayModifyNode(actor, node);
      if (node.haGroup !== null && node.haGroup !== group) throw nodeInAnotherGroup(node.id, node.haGroup);
    }
    await this.setGroupOf(manager, org, ids, group);
  }

  private async leave(
    manager: EntityManager,
    actor: Principal,
    org: string,
    nodes: NodeEntity[],
  ): Promise<void> {
    for (const node of nodes) assertMayModifyNode(actor, node);
    await this.setGroupOf(
      manager,
      org,
      nodes.map((node) => node.id),
      null,
    );
  }

  /**
   * Sets only `ha_group`: workloads and everything else about the node stay as they are. Each
   * member's change carries the whole node, as every node change does.
   */
  private async setGroupOf(
    manager: EntityManager,
    org: string,
    ids: string[],
    group: string | null,
  ): Promise<void> {
    if (ids.length === 0) return;
    await manager.query(
      'UPDATE exchange.nodes SET ha_group = $3, updated_at = now() WHERE org = $1 AND id = ANY($2)',
      [org, ids, group],
    );
    const nodes = await manager.find(NodeEntity, { where: { org, id: In(ids) }, order: { id: 'ASC' } });
    for (const node of nodes) {
      await this.changes.record(manager, {
        org,
        resource: 'node',
        resourceId: node.id,
        operation: 'updated',
        data: NodeResponse.from(node),
      });
    }
  }

  private async lockGroup(manager: EntityManager, org: string, name: string): Promise<void> {
    const group = await manager.findOne(HaGroupEntity, {
      where: { org, name },
      lock: { mode: 'pessimistic_write' },
    });
    if (!group) throw haGroupNotFound(org, name);
  }

  private lockMembers(manager: EntityManager, org: string, name: string): Promise<NodeEntity[]> {
    return manager.find(NodeEntity, {
      where: { org, haGroup: name },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  private async memberIds(manager: EntityManager, org: string, name: string): Promise<string[]> {
    const rows: { id: string }[] = await manager.query(
      'SELECT id FROM exchange.nodes WHERE org = $1 AND ha_group = $2 ORDER BY id',
      [org, name],
    );
    return rows.map((row) => row.id);
  }

  private async recordGroup(
    manager: EntityManager,
    org: string,
    name: string,
    operation: 'created' | 'updated',
  ): Promise<HaGroupResponse> {
    const group = await manager.findOneOrFail(HaGroupEntity, { where: { org, name } });
    const response = HaGroupResponse.from(group, await this.memberIds(manager, org, name));
    await this.changes.record(manager, {
      org,
      resource: 'haGroup',
      resourceId: name,
      operation,
      data: response,
    });
    return response;
  }
}
