/** Services of an org: what nodes can run, one row per url, version and arch. */
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsService } from '../orgs/orgs.service';
import { type PutServiceDto } from './dto/put-service.dto';
import { ServiceResponse, type ServiceListResponse } from './dto/service.response';
import { ServiceEntity } from './service.entity';
import { serviceNotFound, serviceVersionExists } from './services.errors';

const UNIQUE_URL_VERSION_ARCH = 'services_url_version_arch_key';

function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && driverError.constraint === constraint;
}

@Injectable()
export class ServicesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orgs: OrgsService,
    private readonly changes: ChangeRecorder,
  ) {}

  /** Creates the service or replaces it; `created` tells which. */
  async put(
    org: string,
    id: string,
    input: PutServiceDto,
  ): Promise<{ created: boolean; service: ServiceResponse }> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        await this.orgs.require(manager, org);
        const taken: unknown[] = await manager.query(
          `SELECT id FROM exchange.services WHERE org = $1 AND url = $2 AND version = $3 AND arch = $4 AND id <> $5`,
          [org, input.url, input.version, input.arch, id],
        );
        if (taken.length > 0) throw serviceVersionExists(org, input.url, input.version, input.arch);
        const rows: { created: boolean }[] = await manager.query(
          `INSERT INTO exchange.services (org, id, url, version, arch, runtime, description)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (org, id) DO UPDATE SET url = EXCLUDED.url, version = EXCLUDED.version,
             arch = EXCLUDED.arch, runtime = EXCLUDED.runtime, description = EXCLUDED.description,
             updated_at = now()
           RETURNING (xmax = 0) AS created`,
          [
            org,
            id,
            input.url,
            input.version,
            input.arch,
            JSON.stringify(input.runtime),
            input.description ?? null,
          ],
        );
        const created = rows[0]?.created === true;
        const service = ServiceResponse.from(await this.require(manager, org, id));
        await this.changes.record(manager, {
          org,
          resource: 'service',
          resourceId: id,
          operation: created ? 'created' : 'updated',
          data: service,
        });
        return { created, service };
      });
    } catch (error) {
      // A concurrent PUT may take the url, version and arch between the check and the insert.
      if (isUniqueViolation(error, UNIQUE_URL_VERSION_ARCH))
        throw serviceVersionExists(org, input.url, input.version, input.arch);
      throw error;
    }
  }

  async list(org: string, filter: { url?: string }): Promise<ServiceListResponse> {
    await this.orgs.require(this.dataSource.manager, org);
    const services = await this.dataSource.manager.find(ServiceEntity, {
      where: { org, ...(filter.url === undefined ? {} : { url: filter.url }) },
      order: { id: 'ASC' },
    });
    return { items: services.map(ServiceResponse.from), total: services.length };
  }

  async get(org: string, id: string): Promise<ServiceResponse> {
    return ServiceResponse.from(await this.require(this.dataSource.manager, org, id));
  }

  async remove(org: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const deleted: [unknown[], number] = await manager.query(
        'DELETE FROM exchange.services WHERE org = $1 AND id = $2',
        [org, id],
      );
      if (deleted[1] === 0) throw serviceNotFound(org, id);
      await this.changes.record(manager, { org, resource: 'service', resourceId: id, operation: 'deleted' });
    });
  }

  private async require(manager: EntityManager, org: string, id: string): Promise<ServiceEntity> {
    const service = await manager.findOne(ServiceEntity, { where: { org, id } });
    if (!service) throw serviceNotFound(org, id);
    return service;
  }
}
