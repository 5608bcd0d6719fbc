/**
 * Deployment policies of an org: which service (by url and version range) runs on which
 * compatible nodes, and how many. Stores constraints as given; the constraint language is
 * checked by the policy library, not here.
 */
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { toStoredPolicy } from '../nodes/dto/policy.dto';
import { OrgsService } from '../orgs/orgs.service';
import { deploymentPolicyNotFound } from './deployment-policies.errors';
import { type Placement } from './deployment-policy.entity';
import { DeploymentPolicyEntity } from './deployment-policy.entity';
import {
  DeploymentPolicyResponse,
  type DeploymentPolicyListResponse,
} from './dto/deployment-policy.response';
import { type PutDeploymentPolicyDto } from './dto/put-deployment-policy.dto';

@Injectable()
export class DeploymentPoliciesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orgs: OrgsService,
    private readonly changes: ChangeRecorder,
  ) {}

  /**
   * Creates the policy or replaces it; `created` tells which. `allowed` is shown the project it
   * names and, when it exists, the project it had, before anything is written.
   */
  async put(
    org: string,
    name: string,
    input: PutDeploymentPolicyDto,
    allowed: (project: string) => void = () => undefined,
  ): Promise<{ created: boolean; policy: DeploymentPolicyResponse }> {
    allowed(input.project);
    const { properties, constraints } = toStoredPolicy(input);
    const placement: Placement =
      input.placement.mode === 'replicas'
        ? { mode: 'replicas', replicas: input.placement.replicas }
        : { mode: 'all' };
    const service = {
      org: input.service.org,
      url: input.service.url,
      versionRange: input.service.versionRange,
    };
    return this.dataSource.transaction(async (manager) => {
      await this.orgs.require(manager, org);
      const [had] = (await manager.query(
        'SELECT project FROM exchange.deployment_policies WHERE org = $1 AND name = $2 FOR UPDATE',
        [org, name],
      )) as { project: string }[];
      if (had) allowed(had.project);
      const rows: { created: boolean }[] = await manager.query(
        `INSERT INTO exchange.deployment_policies
           (org, name, description, project, service, properties, constraints, placement)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (org, name) DO UPDATE SET description = EXCLUDED.description,
           project = EXCLUDED.project, service = EXCLUDED.service, properties = EXCLUDED.properties,
           constraints = EXCLUDED.constraints, placement = EXCLUDED.placement, updated_at = now()
         RETURNING (xmax = 0) AS created`,
        [
          org,
          name,
          input.description ?? null,
          input.project,
          JSON.stringify(service),
          JSON.stringify(properties),
          JSON.stringify(constraints),
          JSON.stringify(placement),
        ],
      );
      const created = rows[0]?.created === true;
      const policy = DeploymentPolicyResponse.from(await this.require(manager, org, name));
      await this.changes.record(manager, {
        org,
        resource: 'deploymentPolicy',
        resourceId: name,
        operation: created ? 'created' : 'updated',
        data: policy,
      });
      return { created, policy };
    });
  }

  async list(org: string): Promise<DeploymentPolicyListResponse> {
    await this.orgs.require(this.dataSource.manager, org);
    const policies = await this.dataSource.manager.find(DeploymentPolicyEntity, {
      where: { org },
      order: { name: 'ASC' },
    });
    return { items: policies.map(DeploymentPolicyResponse.from), total: policies.length };
  }

  async get(org: string, name: string): Promise<DeploymentPolicyResponse> {
    return DeploymentPolicyResponse.from(await this.require(this.dataSource.manager, org, name));
  }

  async remove(org: string, name: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const deleted: [unknown[], number] = await manager.query(
        'DELETE FROM exchange.deployment_policies WHERE org = $1 AND name = $2',
        [org, name],
      );
      if (deleted[1] === 0) throw deploymentPolicyNotFound(org, name);
      await this.changes.record(manager, {
        org,
        resource: 'deploymentPolicy',
        resourceId: name,
        operation: 'deleted',
      });
    });
  }

  private async require(manager: EntityManager, org: string, name: string): Promise<DeploymentPolicyEntity> {
    const policy = await manager.findOne(DeploymentPolicyEntity, { where: { org, name } });
    if (!policy) throw deploymentPolicyNotFound(org, name);
    return policy;
  }
}
