import { AllowNodes, CurrentPrincipal, OrgScoped, Roles, type Principal } from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import { IdentifierPipe } from '@careen/service';
import { ApiBasicAuth, ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { type Response } from 'express';
import { ManagementStatusService } from '../management-status/management-status.service';
import { type StatusRollupResponse } from '../management-status/dto/management-status.response';
import { ManagementPolicyDto } from './dto/management-policy.dto';
import {
  type AppliesToResponse,
  type ManagementPolicyListResponse,
  ManagementPolicyResponse,
} from './dto/management-policy.response';
import { ManagementPoliciesService } from './management-policies.service';

@ApiTags('management-policies')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@Controller('v1/orgs/:org/management-policies')
export class ManagementPoliciesController {
  constructor(
    private readonly policies: ManagementPoliciesService,
    private readonly statuses: ManagementStatusService,
  ) {}

  /** Creates (201) or replaces (200) the policy. */
  @Put(':name')
  @Roles('orgAdmin')
  async publish(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: ManagementPolicyDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ManagementPolicyResponse> {
    const { created, policy } = await this.policies.publish(actor, org, name, body);
    response.status(created ? 201 : 200);
    return policy;
  }

  /** Nodes may read their org's policies: an agent starting afresh reads them here, then follows the feed. */
  @Get()
  @AllowNodes()
  list(@Param('org') org: string): Promise<ManagementPolicyListResponse> {
    return this.policies.list(org);
  }

  @Get(':name')
  @AllowNodes()
  get(@Param('org') org: string, @Param('name') name: string): Promise<ManagementPolicyResponse> {
    return this.policies.get(org, name);
  }

  @Delete(':name')
  @Roles('orgAdmin')
  @HttpCode(204)
  remove(@Param('org') org: string, @Param('name') name: string): Promise<void> {
    return this.policies.remove(org, name);
  }

  @Get(':name/nodes')
  appliesTo(@Param('org') org: string, @Param('name') name: string): Promise<AppliesToResponse> {
    return this.policies.appliesTo(org, name);
  }

  /** How the policy's nodes are doing: counts by status. */
  @Get(':name/status')
  rollup(@Param('org') org: string, @Param('name') name: string): Promise<StatusRollupResponse> {
    return this.statuses.rollup(org, name);
  }
}
