import { CurrentPrincipal, principalId, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { type StrategyProblem } from '@careen/contracts';
import { actingOrg, IdentifierPipe, listAnswer, type ListAnswer, YAML_MEDIA_TYPES } from '@careen/service';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { OrgQuery, StrategyVersionQuery } from './dto/strategy.query';
import {
  PublishedStrategyResponse,
  StrategyListResponse,
  StrategyPlanResponse,
  StrategyResponse,
} from './dto/strategy.response';
import { Strategies } from './strategies';
import { type StrategyPlan } from './strategy-plan';
import { type StrategyView } from './strategy-view';

const NAME = new IdentifierPipe('name');

/** Deployment strategies of the caller's org (any org for a hub admin, with `?org=`). */
@ApiTags('strategies')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('rollouts')
@Controller('v1/strategies')
export class StrategiesController {
  constructor(private readonly strategies: Strategies) {}

  @Post()
  @ApiCreatedResponse({
    description:
      'the strategy as stored, with its version and stages (`created` false when it was stored already)',
    type: PublishedStrategyResponse,
  })
  @NeedsRole('orgAdmin')
  @ApiOperation({
    summary:
      'Publish a DeploymentStrategy (JSON, or YAML such as a Shipyard document); a changed one is a new version',
  })
  @ApiConsumes('application/json', ...YAML_MEDIA_TYPES)
  @ApiBody({
    description:
      'a Shipyard document (schema, metadata, data.groups) or {name, groups}, read whole: every problem is named with its path',
    schema: { type: 'object', additionalProperties: true },
  })
  @ApiBadRequestResponse({
    description:
      'no strategy in the body, malformed YAML, or every problem of the document, each with its path in `details`',
  })
  publish(
    @CurrentPrincipal() actor: Principal,
    @Query() query: OrgQuery,
    @Body() body: unknown,
  ): Promise<StrategyView & { created: boolean; warnings: StrategyProblem[] }> {
    const org = actingOrg(actor, query.org);
    return this.strategies.publish(org, principalId(actor), body);
  }

  @Get()
  @ApiOkResponse({ description: 'the strategies, each at its newest version', type: StrategyListResponse })
  @ApiOperation({ summary: "The org's strategies, each at its newest version" })
  async list(
    @CurrentPrincipal() actor: Principal,
    @Query() query: OrgQuery,
  ): Promise<ListAnswer<StrategyView>> {
    return listAnswer(await this.strategies.list(actingOrg(actor, query.org)));
  }

  @Get(':name')
  @ApiOkResponse({ description: 'the strategy', type: StrategyResponse })
  @ApiOperation({ summary: 'A strategy, at its newest version or the one asked for' })
  @ApiNotFoundResponse({ description: 'no such strategy or version' })
  get(
    @CurrentPrincipal() actor: Principal,
    @Param('name', NAME) name: string,
    @Query() query: StrategyVersionQuery,
  ): Promise<StrategyView> {
    return this.strategies.get(actingOrg(actor, query.org), name, query.version);
  }

  @Post(':name/plan')
  @ApiOkResponse({
    description:
      'the plan: each group with its nodes and HA groups, the stages, overlaps and unselected nodes',
    type: StrategyPlanResponse,
  })
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Dry run: the stages, each group’s nodes and HA groups, nodes in several groups or in none, and criteria that can never pass',
  })
  @ApiNotFoundResponse({ description: 'no such strategy or version' })
  @ApiServiceUnavailableResponse({ description: 'the exchange cannot be read' })
  @NeedsRole('viewer')
  plan(
    @CurrentPrincipal() actor: Principal,
    @Param('name', NAME) name: string,
    @Query() query: StrategyVersionQuery,
  ): Promise<StrategyPlan & { version: number }> {
    return this.strategies.plan(actingOrg(actor, query.org), name, query.version);
  }
}
