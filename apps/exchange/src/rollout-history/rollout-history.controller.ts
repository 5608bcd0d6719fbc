import { AllowNodes, CurrentPrincipal, OrgScoped, type Principal, OnResource } from '@careen/auth';
import { IdentifierPipe } from '@careen/service';
import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { OrgsService } from '../orgs/orgs.service';
import { HistoryPageResponse } from './dto/history-entry.response';
import { NodeHistoryQuery, PolicyHistoryQuery } from './dto/history.query';
import { notYourHistory } from './rollout-history.errors';
import { RolloutHistory } from './rollout-history';

/** Rollout history per node and per policy; it outlives the policy and the node. */
@ApiTags('management-policies')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('policies')
@Controller('v1/orgs/:org')
export class RolloutHistoryController {
  constructor(
    private readonly history: RolloutHistory,
    private readonly orgs: OrgsService,
  ) {}

  @Get('nodes/:id/history')
  @AllowNodes()
  @ApiOperation({ summary: 'Read every status the node wrote for management policies, newest first' })
  @ApiOkResponse({ type: HistoryPageResponse })
  @ApiForbiddenResponse({
    description:
      'the caller may not do this (another org), or a node reads the history of another node: HISTORY_NOT_YOURS',
  })
  async forNode(
    @CurrentPrincipal() actor: Principal,
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('id', new IdentifierPipe('node')) node: string,
    @Query() query: NodeHistoryQuery,
  ): Promise<HistoryPageResponse> {
    if (actor.kind === 'node' && actor.node !== node) throw notYourHistory();
    await this.orgs.get(org); // 404 for an org that does not exist
    return this.history.forNode(org, node, query);
  }

  @Get('management-policies/:name/history')
  @ApiOperation({
    summary: "Read the policy's events and its nodes' statuses, newest first, even once removed",
  })
  @ApiOkResponse({ type: HistoryPageResponse })
  async forPolicy(
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Query() query: PolicyHistoryQuery,
  ): Promise<HistoryPageResponse> {
    await this.orgs.get(org); // 404 for an org that does not exist
    return this.history.forPolicy(org, name, query);
  }
}
