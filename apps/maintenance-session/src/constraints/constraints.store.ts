/**
 * Instance groups and instance constraints of an org, as the projects' VNF managers declared
 * them. Each is its project's: a declaration naming another project than the stored one is
 * refused, so one VNF manager cannot loosen another's constraints.
 */
import { Injectable } from '@nestjs/common';
import { OutboxWriter } from '@careen/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import {
  groupInUse,
  groupNotFound,
  instanceNotFound,
  ofAnotherProject,
  pathMismatch,
  unknownGroup,
} from './constraints.errors';
import { type InstanceConstraintResponse, type InstanceGroupResponse } from './dto/constraint.response';
import { type DeclaredConstraints } from '../workflow/session-planner';
import { type InstanceConstraintDto, type InstanceGroupDto } from './dto/instance-group.dto';
import { GroupAnnouncer } from './group-announcer';

const S = 'maintenance_session';
const GROUP_COLUMNS = `org, group_id, project AS project_id, group_name, anti_affinity_group, max_instances_per_host,
  max_impacted_members, recovery_time, resource_mitigation, updated_by, updated_at`;
const INSTANCE_COLUMNS = `org, instance_id, project AS project_id, group_id, instance_name, max_interruption_time,
  migration_type, resource_mitigation, lead_time, updated_by, updated_at`;

type Row<T> = Omit<T, 'updated_at'> & { updated_at: Date };

/** What a locked look at a declaration reads: its project, and its group (a group's own id). */
interface DeclaredRow {
  project: string;
  group_id: string | null;
}

/** A kind of declaration: its table, its key, what it is called, and its 404. */
interface Declared {
  table: string;
  key: string;
  what: string;
  missing: (org: string, id: string) => Error;
}

const GROUPS: Declared = {
  table: 'instance_groups',
  key: 'group_id',
  what: 'instance group',
  missing: groupNotFound,
};
const INSTANCES: Declared = {
  table: 'instance_constraints',
  key: 'instance_id',
  what: 'instance',
  missing: instanceNotFound,
};

const answer = <T extends { updated_at: string }>(row: Row<T>): T =>
  ({ ...row, updated_at: row.updated_at.toISOString() }) as unknown as T;

@Injectable()
export class ConstraintsStore {
  private readonly announcer: GroupAnnouncer;

  constructor(
    private readonly dataSource: DataSource,
    outbox: OutboxWriter,
  ) {
    this.announcer = new GroupAnnouncer(outbox);
  }

  putGroup(org: string, id: string, body: InstanceGroupDto, actor: string): Promise<InstanceGroupResponse> {
    if (body.group_id !== undefined && body.group_id !== id)
      throw pathMismatch('group_id', body.group_id, id);
    return this.dataSource.transaction(async (manager) => {
      await this.sameProject(manager, GROUPS, org, id, body.project_id);
      const [row] = (await manager.query(
        `INSERT INTO ${S}.instance_groups (org, group_id, project, group_name, anti_affinity_group,
           max_instances_per_host, max_impacted_members, recovery_time, resource_mitigation, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (org, group_id) DO UPDATE SET group_name = $4, anti_affinity_group = $5,
           max_instances_per_host = $6, max_impacted_members = $7, recovery_time = $8,
           resource_mitigation = $9, updated_by = $10, updated_at = now()
         RETURNING ${GROUP_COLUMNS}`,
        [
          org,
          id,
          body.project_id,
          body.group_name,
          body.anti_affinity_group,
          body.max_instances_per_host,
          body.max_impacted_members,
          body.recovery_time,
          body.resource_mitigation,
          actor,
        ],
      )) as Row<InstanceGroupResponse>[];
      await this.announcer.announce(manager, org, [id]);
      return answer(row!);
    });
  }

  /** Tells the agbot every group again (at start). */
  announceAll(): Promise<number> {
    return this.announcer.announceAll(this.dataSource);
  }

  async group(org: string, id: string): Promise<InstanceGroupResponse> {
    const [row] = (await this.dataSource.query(
      `SELECT ${GROUP_COLUMNS} FROM ${S}.instance_groups WHERE org = $1 AND group_id = $2`,
      [org, id],
    )) as Row<InstanceGroupResponse>[];
    if (!row) throw groupNotFound(org, id);
    return answer(row);
  }

  /** The org's groups, of `projects` only when given. */
  async groups(org: string, projects?: readonly string[]): Promise<InstanceGroupResponse[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${GROUP_COLUMNS} FROM ${S}.instance_groups
        WHERE org = $1 AND ($2::text[] IS NULL OR project = ANY($2)) ORDER BY project, group_id`,
      [org, projects ?? null],
    )) as Row<InstanceGroupResponse>[];
    return rows.map(answer);
  }

  /** Removes the group once `allowed` accepts its project. */
  removeGroup(org: string, id: string, allowed: (project: string) => void): Promise<void> {
    return this.dataSource.transaction(async (manager) => {
      const project = await this.existingProject(manager, GROUPS, org, id);
      allowed(project);
      const [members] = (await manager.query(
        `SELECT count(*)::int AS count FROM ${S}.instance_constraints WHERE org = $1 AND group_id = $2`,
        [org, id],
      )) as { count: number }[];
      if (members!.count > 0) throw groupInUse(id, members!.count);
      await manager.query(`DELETE FROM ${S}.instance_groups WHERE org = $1 AND group_id = $2`, [org, id]);
      await this.announcer.announceRemoval(manager, org, id, project);
    });
  }

  putInstance(
    org: string,
    id: string,
    body: InstanceConstraintDto,
    actor: string,
  ): Promise<InstanceConstraintResponse> {
    if (body.instance_id !== undefined && body.instance_id !== id)
      throw pathMismatch('instance_id', body.instance_id, id);
    return this.dataSource.transaction(async (manager) => {
      const before = await this.sameProject(manager, INSTANCES, org, id, body.project_id);
      const group = body.group_id ?? null;
      // The groups it leaves and joins, locked before anything is read of them: each is told
      // once this commits, and changes of one group are told in the order they commit.
      const groups = [before?.group_id ?? null, group];
      const owners = await this.announcer.lock(manager, org, groups);
      if (group !== null) {
        const owner = owners.get(group);
        if (owner === undefined) throw unknownGroup(org, group);
        if (owner !== body.project_id) throw ofAnotherProject(GROUPS.what, group, owner);
      }
      const [row] = (await manager.query(
        `INSERT INTO ${S}.instance_constraints (org, instance_id, project, group_id, instance_name,
           max_interruption_time, migration_type, resource_mitigation, lead_time, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (org, instance_id) DO UPDATE SET group_id = $4, instance_name = $5,
           max_interruption_time = $6, migration_type = $7, resource_mitigation = $8, lead_time = $9,
           updated_by = $10, updated_at = now()
         RETURNING ${INSTANCE_COLUMNS}`,
        [
          org,
          id,
          body.project_id,
          group,
          body.instance_name,
          body.max_interruption_time,
          body.migration_type,
          body.resource_mitigation,
          body.lead_time,
          actor,
        ],
      )) as Row<InstanceConstraintResponse>[];
      await this.announcer.announce(manager, org, groups);
      return answer(row!);
    });
  }

  async instance(org: string, id: string): Promise<InstanceConstraintResponse> {
    const [row] = (await this.dataSource.query(
      `SELECT ${INSTANCE_COLUMNS} FROM ${S}.instance_constraints WHERE org = $1 AND instance_id = $2`,
      [org, id],
    )) as Row<InstanceConstraintResponse>[];
    if (!row) throw instanceNotFound(org, id);
    return answer(row);
  }

  /** The org's declared instances, of `projects` only when given. */
  async instances(org: string, projects?: readonly string[]): Promise<InstanceConstraintResponse[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${INSTANCE_COLUMNS} FROM ${S}.instance_constraints
        WHERE org = $1 AND ($2::text[] IS NULL OR project = ANY($2)) ORDER BY project, instance_id`,
      [org, projects ?? null],
    )) as Row<InstanceConstraintResponse>[];
    return rows.map(answer);
  }

  /** Removes the instance's constraints once `allowed` accepts its project. */
  removeInstance(org: string, id: string, allowed: (project: string) => void): Promise<void> {
    return this.dataSource.transaction(async (manager) => {
      allowed(await this.existingProject(manager, INSTANCES, org, id));
      const [removed] = (await manager.query(
        `WITH gone AS (DELETE FROM ${S}.instance_constraints WHERE org = $1 AND instance_id = $2 RETURNING group_id)
         SELECT group_id FROM gone`,
        [org, id],
      )) as { group_id: string | null }[];
      await this.announcer.announce(manager, org, [removed?.group_id ?? null]);
    });
  }

  /** The project that declared it and its group (the row locked), if it is declared. */
  private async declaredRow(
    manager: EntityManager,
    kind: Declared,
    org: string,
    id: string,
  ): Promise<DeclaredRow | undefined> {
    const [row] = (await manager.query(
      `SELECT project, group_id FROM ${S}.${kind.table} WHERE org = $1 AND ${kind.key} = $2 FOR UPDATE`,
      [org, id],
    )) as DeclaredRow[];
    return row;
  }

  /** The project that declared it, locked; 404 when none did. */
  private async existingProject(
    manager: EntityManager,
    kind: Declared,
    org: string,
    id: string,
  ): Promise<string> {
    const row = await this.declaredRow(manager, kind, org, id);
    if (!row) throw kind.missing(org, id);
    return row.project;
  }

  /** The org's groups and declared instances, for planning a session. */
  async declared(org: string): Promise<DeclaredConstraints> {
    const groups = (await this.dataSource.query(
      `SELECT group_id AS id, project, max_impacted_members AS "maxImpacted", recovery_time AS "recoverySeconds"
         FROM ${S}.instance_groups WHERE org = $1 ORDER BY group_id`,
      [org],
    )) as DeclaredConstraints['groups'];
    const instances = (await this.dataSource.query(
      `SELECT instance_id AS id, project, group_id AS "group", lead_time AS "leadSeconds",
              max_interruption_time AS "maxInterruptionSeconds", migration_type AS "migrationType"
         FROM ${S}.instance_constraints WHERE org = $1`,
      [org],
    )) as DeclaredConstraints['instances'];
    return { groups, instances };
  }

  /**
   * Refuses a declaration of `project` over one another project made (locking the row meanwhile);
   * answers the row declared before, if any.
   */
  private async sameProject(
    manager: EntityManager,
    kind: Declared,
    org: string,
    id: string,
    project: string,
  ): Promise<DeclaredRow | undefined> {
    const had = await this.declaredRow(manager, kind, org, id);
    if (had && had.project !== project) throw ofAnotherProject(kind.what, id, had.project);
    return had;
  }
}
