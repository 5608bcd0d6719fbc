/**
 * The agbot's copy of exchange nodes, services, deployment and management policies, HA groups
 * and disruption controls (windows, freezes, budgets) in its own schema. Every write is guarded by the exchange change id, so a change older than the row is
 * ignored and a redelivered change applies once.
 */
import { type ChangePayload } from '@careen/contracts';
import { NamedStatement } from '@careen/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type MirroredNode } from './mirrored-node';

export const MIRRORED_RESOURCES = [
  'service',
  'deploymentPolicy',
  'managementPolicy',
  'haGroup',
  'window',
  'freeze',
  'budget',
  'gate',
] as const;
export type MirroredResource = (typeof MIRRORED_RESOURCES)[number];

/** A node change merged into its row, when newer than the row: $3 the change, $4 a new row's defaults. */
const MERGE_NODE = new NamedStatement(
  'mirror-merge-node',
  `INSERT INTO agbot.nodes AS n (org, id, ha_group, data, change_id)
   VALUES ($1, $2, $3::jsonb ->> 'haGroup', $4::jsonb || $3::jsonb, $5)
   ON CONFLICT (org, id) DO UPDATE
     SET data = n.data || $3::jsonb,
         ha_group = CASE WHEN $3::jsonb ? 'haGroup' THEN $3::jsonb ->> 'haGroup' ELSE n.ha_group END,
         change_id = EXCLUDED.change_id
     WHERE n.change_id < EXCLUDED.change_id
   RETURNING 1`,
);

/** A resource written whole, when newer than its row. */
const PUT_RESOURCE = new NamedStatement(
  'mirror-put-resource',
  `INSERT INTO agbot.mirrored_resources AS r (org, resource, id, data, change_id)
   VALUES ($1, $2, $3, $4, $5)
   ON CONFLICT (org, resource, id) DO UPDATE SET data = EXCLUDED.data, change_id = EXCLUDED.change_id
     WHERE r.change_id < EXCLUDED.change_id
   RETURNING 1`,
);

/** The nodes of the `[org, id]` pairs given as two arrays; read for every batch of node changes. */
const FIND_NODES = new NamedStatement(
  'mirror-find-nodes',
  `SELECT n.data FROM agbot.nodes n JOIN unnest($1::text[], $2::text[]) AS k(org, id) ON n.org = k.org AND n.id = k.id`,
);

interface NodeRow {
  data: MirroredNode;
}

@Injectable()
export class ExchangeMirror {
  /** The newest change the last resync's snapshot already reflects. */
  private resyncedThrough = 0;

  constructor(private readonly dataSource: DataSource) {}

  /** Applies one change; false when the mirror already held it or something newer. */
  async apply(manager: EntityManager, change: ChangePayload, changeId: number): Promise<boolean> {
    // Even a row the snapshot no longer has (deleted since) must not come back from an old change.
    const mirrored = change.resource === 'node' || isMirroredResource(change.resource);
    if (mirrored && changeId <= this.resyncedThrough) return false;
    if (change.resource === 'node') {
      return change.operation === 'deleted'
        ? this.deleteNode(manager, change.org, change.resourceId, changeId)
        : this.mergeNode(manager, change.org, change.resourceId, change.data ?? {}, changeId);
    }
    if (isMirroredResource(change.resource)) {
      return change.operation === 'deleted'
        ? this.deleteResource(manager, change.org, change.resource, change.resourceId, changeId)
        : this.putResource(
            manager,
            change.org,
            change.resource,
            change.resourceId,
            change.data ?? {},
            changeId,
          );
    }
    // Changes the agbot keeps no copy of are new as far as listeners are concerned.
    return true;
  }

  /** Merges (a part of) a node into its row: the exchange publishes some node changes as patches. */
  async mergeNode(
    manager: EntityManager,
    org: string,
    id: string,
    data: Record<string, unknown>,
    changeId: number,
  ): Promise<boolean> {
    const rows = await MERGE_NODE.run<unknown[]>(manager, [
      org,
      id,
      JSON.stringify(data),
      JSON.stringify(nodeDefaults(org, id)),
      changeId,
    ]);
    return rows.length > 0;
  }

  /**
   * Moves the nodes' `status.lastHeartbeat` forward to `seenAt` (never back), for nodes the
   * exchange saw poll without reporting a status. A node change applied later may carry an
   * older heartbeat along; the node's next poll moves it forward again. Answers the nodes moved.
   *
   * A node whose row another transaction holds is skipped, not waited for: waiting, with a
   * fleet's nodes in whatever order, deadlocked against other transactions on those rows under
   * load, and the node's next poll moves its heartbeat on anyway.
   */
  async markSeen(org: string, nodes: readonly string[], seenAt: string): Promise<number> {
    const [, count] = (await this.dataSource.query(
      `WITH free AS (
         SELECT org, id FROM agbot.nodes
         WHERE org = $1 AND id = ANY($2)
           AND coalesce((data -> 'status' ->> 'lastHeartbeat')::timestamptz < $4::timestamptz, true)
         FOR NO KEY UPDATE SKIP LOCKED
       )
       UPDATE agbot.nodes n
       SET data = jsonb_set(
         n.data, '{status}',
         CASE WHEN jsonb_typeof(n.data -> 'status') = 'object' THEN n.data -> 'status' ELSE '{}'::jsonb END
           || jsonb_build_object('lastHeartbeat', $3::text))
       FROM free WHERE n.org = free.org AND n.id = free.id`,
      // The time as sent (an ISO string, as the exchange writes it) and as a time to compare.
      [org, nodes, seenAt, seenAt],
    )) as [unknown, number];
    return count;
  }

  async deleteNode(manager: EntityManager, org: string, id: string, changeId: number): Promise<boolean> {
    const [, count] = (await manager.query(
      'DELETE FROM agbot.nodes WHERE org = $1 AND id = $2 AND change_id < $3',
      [org, id, changeId],
    )) as [unknown, number];
    return count > 0;
  }

  async putResource(
    manager: EntityManager,
    org: string,
    resource: MirroredResource,
    id: string,
    data: Record<string, unknown>,
    changeId: number,
  ): Promise<boolean> {
    const rows = await PUT_RESOURCE.run<unknown[]>(manager, [
      org,
      resource,
      id,
      JSON.stringify(data),
      changeId,
    ]);
    return rows.length > 0;
  }

  async deleteResource(
    manager: EntityManager,
    org: string,
    resource: MirroredResource,
    id: string,
    changeId: number,
  ): Promise<boolean> {
    const [, count] = (await manager.query(
      'DELETE FROM agbot.mirrored_resources WHERE org = $1 AND resource = $2 AND id = $3 AND change_id < $4',
      [org, resource, id, changeId],
    )) as [unknown, number];
    return count > 0;
  }

  /**
   * Replaces the whole mirror with a snapshot read from the exchange (a full resync) that
   * reflects every change up to `asOf`: its rows carry that change id, and only later changes on
   * the stream apply on top.
   */
  async replaceAll(
    manager: EntityManager,
    nodes: MirroredNode[],
    resources: { resource: MirroredResource; id: string; data: { org: string } }[],
    asOf: number,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO agbot.nodes AS n (org, id, ha_group, data, change_id)
       SELECT org, id, data ->> 'haGroup', data, $4 FROM unnest($1::text[], $2::text[], $3::jsonb[]) AS s(org, id, data)
       ON CONFLICT (org, id) DO UPDATE SET data = EXCLUDED.data, ha_group = EXCLUDED.ha_group, change_id = EXCLUDED.change_id`,
      [
        nodes.map((node) => node.org),
        nodes.map((node) => node.id),
        nodes.map((node) => JSON.stringify(node)),
        asOf,
      ],
    );
    await manager.query(`DELETE FROM agbot.nodes WHERE NOT (org || '/' || id = ANY($1::text[]))`, [
      nodes.map((node) => `${node.org}/${node.id}`),
    ]);
    await manager.query(
      `INSERT INTO agbot.mirrored_resources AS r (org, resource, id, data, change_id)
       SELECT org, resource, id, data, $5
       FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) AS s(org, resource, id, data)
       ON CONFLICT (org, resource, id) DO UPDATE SET data = EXCLUDED.data, change_id = EXCLUDED.change_id`,
      [
        resources.map((each) => each.data.org),
        resources.map((each) => each.resource),
        resources.map((each) => each.id),
        resources.map((each) => JSON.stringify(each.data)),
        asOf,
      ],
    );
    await manager.query(
      `DELETE FROM agbot.mirrored_resources WHERE NOT (org || '/' || resource || '/' || id = ANY($1::text[]))`,
      [resources.map((each) => `${each.data.org}/${each.resource}/${each.id}`)],
    );
  }

  /** Called once the resync's transaction has committed. */
  resynced(asOf: number): void {
    this.resyncedThrough = asOf;
  }

  async findNode(
    org: string,
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<MirroredNode | undefined> {
    const rows: NodeRow[] = await manager.query('SELECT data FROM agbot.nodes WHERE org = $1 AND id = $2', [
      org,
      id,
    ]);
    return rows[0]?.data;
  }

  /** The nodes of those `[org, id]` pairs the mirror holds; the others are not in the answer. */
  async findNodes(keys: readonly (readonly [string, string])[]): Promise<MirroredNode[]> {
    if (keys.length === 0) return [];
    const rows = await FIND_NODES.run<NodeRow[]>(this.dataSource, [
      keys.map(([org]) => org),
      keys.map(([, id]) => id),
    ]);
    return rows.map((row) => row.data);
  }

  async groupMembers(
    org: string,
    haGroup: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<MirroredNode[]> {
    const rows: NodeRow[] = await manager.query(
      'SELECT data FROM agbot.nodes WHERE org = $1 AND ha_group = $2 ORDER BY id',
      [org, haGroup],
    );
    return rows.map((row) => row.data);
  }

  async allNodes(manager: EntityManager = this.dataSource.manager): Promise<MirroredNode[]> {
    const rows: NodeRow[] = await manager.query('SELECT data FROM agbot.nodes ORDER BY org, id');
    return rows.map((row) => row.data);
  }

  async findResource<T>(
    org: string,
    resource: MirroredResource,
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<T | undefined> {
    const rows: { data: T }[] = await manager.query(
      'SELECT data FROM agbot.mirrored_resources WHERE org = $1 AND resource = $2 AND id = $3',
      [org, resource, id],
    );
    return rows[0]?.data;
  }

  async allResources<T>(
    resource: MirroredResource,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<T[]> {
    const rows: { data: T }[] = await manager.query(
      'SELECT data FROM agbot.mirrored_resources WHERE resource = $1 ORDER BY org, id',
      [resource],
    );
    return rows.map((row) => row.data);
  }
}

function isMirroredResource(resource: string): resource is MirroredResource {
  return (MIRRORED_RESOURCES as readonly string[]).includes(resource);
}

function nodeDefaults(org: string, id: string): MirroredNode {
  return {
    org,
    id,
    pattern: null,
    policy: { properties: [], constraints: [] },
    rack: null,
    haGroup: null,
    schedulable: true,
    maintenance: null,
    status: null,
  };
}
