/** Orgs: the tenants. Creating one is a hub admin's act; every org's data is isolated. */
import { isHubAdmin, type Principal } from '@careen/auth';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgResponse } from './dto/org.response';
import { OrgEntity } from './org.entity';
import { orgExists, orgNotFound } from './orgs.errors';

@Injectable()
export class OrgsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ChangeRecorder,
  ) {}

  async create(input: {
    id: string;
    label?: string;
    upgradeDefaults?: Record<string, unknown>;
  }): Promise<OrgResponse> {
    return this.dataSource.transaction(async (manager) => {
      const inserted: unknown[] = await manager.query(
        `INSERT INTO exchange.orgs (id, label, upgrade_defaults) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [input.id, input.label ?? input.id, JSON.stringify(input.upgradeDefaults ?? {})],
      );
      if (inserted.length === 0) throw orgExists(input.id);
      const org = OrgResponse.from(await this.require(manager, input.id));
      await this.changes.record(manager, {
        org: org.id,
        resource: 'org',
        resourceId: org.id,
        operation: 'created',
        data: org,
      });
      return org;
    });
  }

  /** Every org for a hub admin; the caller's own org for anyone else. */
  async list(actor: Principal): Promise<OrgResponse[]> {
    const orgs = await this.dataSource.manager.find(OrgEntity, {
      where: isHubAdmin(actor) ? {} : { id: actor.org },
      order: { id: 'ASC' },
    });
    return orgs.map((org) => OrgResponse.from(org));
  }

  async get(id: string): Promise<OrgResponse> {
    return OrgResponse.from(await this.require(this.dataSource.manager, id));
  }

  /** Ensures the org exists inside a transaction, locking it against concurrent deletion. */
  async require(manager: EntityManager, id: string): Promise<OrgEntity> {
    const org = await manager.findOne(OrgEntity, { where: { id } });
    if (!org) throw orgNotFound(id);
    return org;
  }
}
