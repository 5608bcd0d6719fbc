import { CurrentPrincipal, OrgScoped, NeedsRole, type Principal, OnResource } from '@careen/auth';
import { IdentifierPipe } from '@careen/service';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ResetResponse } from '../management-policies/dto/management-policy.response';
import { ResetRolloutDto } from '../management-policies/dto/rollout-control.dto';
import { ManagementStatusPageQuery } from './dto/management-status-page.query';
import { ManagementStatusPageResponse, StatusRollupResponse } from './dto/management-status.response';
import { ManagementStatusService } from './management-status.service';

/** A policy's nodes' statuses: rolled up, listed, and reset. */
@ApiTags('management-policies')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('policies')
@Controller('v1/orgs/:org/management-policies/:name')
export class PolicyStatusesController {
  constructor(private readonly statuses: ManagementStatusService) {}

  @Get('status')
  @ApiOperation({ summary: "Count the policy's nodes by status, with the rollout's state" })
  @ApiOkResponse({ type: StatusRollupResponse })
  rollup(@Param('org') org: string, @Param('name') name: string): Promise<StatusRollupResponse> {
    return this.statuses.rollup(org, name);
  }

  @Get('statuses')
  @ApiOperation({ summary: "List the policy's nodes' statuses, a page at a time, by node id" })
  @ApiOkResponse({ type: ManagementStatusPageResponse })
  page(
    @Param('org') org: string,
    @Param('name') name: string,
    @Query() query: ManagementStatusPageQuery,
  ): Promise<ManagementStatusPageResponse> {
    return this.statuses.page(org, name, query);
  }

  @Post('reset')
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({
    summary: 'Ask nodes to enact the policy again: the given nodes, the failed ones, or all of them',
  })
  @ApiOkResponse({ type: ResetResponse, description: 'the nodes reset' })
  @ApiBadRequestResponse({
    description:
      'a parameter or the body does not validate, or it gives both "nodes" and "failed": true (MANAGEMENT_POLICY_RESET_CHOICE)',
  })
  @ApiNotFoundResponse({
    description: 'no such org or policy, or a node in "nodes" is not one of the org\'s (NODE_NOT_FOUND)',
  })
  reset(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: ResetRolloutDto,
  ): Promise<ResetResponse> {
    return this.statuses.reset(actor, org, name, body);
  }
}
