import { OrgScoped, OnResource } from '@careen/auth';
import { IdentifierPipe, listAnswer } from '@careen/service';
import { Controller, Get, Param } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { type RolloutReport } from '../placement/placement-rounds';
import { PlacementStore } from '../placement/placement-store';
import { RolloutListResponse } from './dto/rollout.response';

/** Service upgrades under way (or halted) in an org, as the leading agbot last planned them. */
@ApiTags('rollouts')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('rollouts')
@Controller('v1/orgs/:org/rollouts')
export class RolloutsController {
  private readonly store: PlacementStore;

  constructor(dataSource: DataSource) {
    this.store = new PlacementStore(dataSource);
  }

  @Get()
  @ApiOkResponse({
    type: RolloutListResponse,
    description: 'the rollouts not yet settled, by deployment policy',
  })
  @ApiOperation({ summary: "List the org's service rollouts through HA groups" })
  @OrgScoped()
  async list(@Param('org', IdentifierPipe) org: string): Promise<RolloutListResponse> {
    const rows = await this.store.rolloutReports<RolloutReport>(org);
    return listAnswer(
      rows.map((row) => ({
        deploymentPolicy: row.deploymentPolicy,
        ...row.report,
        updatedAt: row.updatedAt.toISOString(),
      })),
    );
  }
}
