import { CurrentPrincipal, principalId, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { actingOrg, listAnswer, type ListAnswer } from '@careen/service';
import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { RequestUpgradeDto } from './dto/request-upgrade.dto';
import { UpgradeListQuery } from './dto/upgrade-list.query';
import { UpgradeListResponse, UpgradeResponse } from './dto/upgrade.response';
import { upgradeView, type UpgradeView } from './upgrade-view';
import { Upgrades } from './upgrades';

/** Single-node upgrades and their history, of the caller's org (any org for a hub admin). */
@ApiTags('upgrades')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('upgrades')
@Controller('v1/upgrades')
export class UpgradesController {
  constructor(private readonly upgrades: Upgrades) {}

  @Post()
  @ApiCreatedResponse({ description: 'the upgrade, started: its history row', type: UpgradeResponse })
  @NeedsRole('operator')
  @ApiOperation({ summary: "Upgrade one node's agent to a version; one history row per attempt" })
  @ApiBadRequestResponse({ description: 'bad fields, an unknown install strategy or agent version' })
  @ApiNotFoundResponse({ description: 'no such node in the org' })
  @ApiConflictResponse({
    description:
      'the node cannot be upgraded now: in a maintenance session, offline, or in a rollout or upgrade; or the version is below the one it runs and allowDowngrade is not set (orchestrator.downgrade-refused)',
  })
  @ApiServiceUnavailableResponse({ description: 'the exchange cannot be read' })
  async request(@CurrentPrincipal() actor: Principal, @Body() body: RequestUpgradeDto): Promise<UpgradeView> {
    const { org: asked, ...request } = body;
    const org = actingOrg(actor, asked);
    return upgradeView(await this.upgrades.request(org, principalId(actor), request));
  }

  @Get()
  @ApiOkResponse({ description: 'the history rows, newest first', type: UpgradeListResponse })
  @ApiOperation({ summary: 'The upgrade history, newest first, of one node and in one state when asked' })
  async list(
    @CurrentPrincipal() actor: Principal,
    @Query() query: UpgradeListQuery,
  ): Promise<ListAnswer<UpgradeView>> {
    const items = await this.upgrades.list(actingOrg(actor, query.org), {
      node: query.node_id,
      state: query.state,
      limit: query.limit ?? 50,
    });
    return listAnswer(items.map(upgradeView));
  }
}
