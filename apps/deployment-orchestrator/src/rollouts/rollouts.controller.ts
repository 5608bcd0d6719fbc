import { CurrentPrincipal, principalId, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { actingOrg, listAnswer, type ListAnswer, uuidPipe } from '@careen/service';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
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
import { ListLimitQuery } from './dto/rollout-list.query';
import { RolloutListResponse, RolloutResponse } from './dto/rollout.response';
import { StartRolloutDto } from './dto/start-rollout.dto';
import { Rollouts } from './rollouts';
import { type RolloutView } from './rollout-view';

const ROLLOUT_ID = uuidPipe('id');

/** Rollouts of strategies, of the caller's org (any org for a hub admin). */
@ApiTags('rollouts')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('rollouts')
@Controller('v1/rollouts')
export class RolloutsController {
  constructor(private readonly rollouts: Rollouts) {}

  @Post()
  @ApiCreatedResponse({ description: 'the rollout, running', type: RolloutResponse })
  @NeedsRole('operator')
  @ApiOperation({ summary: "Start rolling a strategy's groups to an agent version" })
  @ApiBadRequestResponse({ description: 'bad fields, an unknown strategy or an unknown agent version' })
  @ApiConflictResponse({
    description:
      'some nodes are in another rollout or upgrade (details.holders names it), or run a version above the one asked and allow_downgrade is not set (details.nodes names them)',
  })
  @ApiServiceUnavailableResponse({ description: 'the exchange cannot be read' })
  start(@CurrentPrincipal() actor: Principal, @Body() body: StartRolloutDto): Promise<RolloutView> {
    const { org: asked, ...request } = body;
    const org = actingOrg(actor, asked);
    return this.rollouts.start(org, principalId(actor), request);
  }

  @Get()
  @ApiOkResponse({ description: 'the rollouts, without their nodes', type: RolloutListResponse })
  @ApiOperation({ summary: "The org's rollouts, newest first, without their nodes" })
  async list(
    @CurrentPrincipal() actor: Principal,
    @Query() query: ListLimitQuery,
  ): Promise<ListAnswer<RolloutView>> {
    return listAnswer(await this.rollouts.list(actingOrg(actor, query.org), query.limit ?? 50));
  }

  @Get(':id')
  @ApiOkResponse({ description: 'the report', type: RolloutResponse })
  @ApiOperation({
    summary: 'The report: every group with its phase, outcome and reason, every node with its state',
  })
  @ApiNotFoundResponse({ description: 'no such rollout' })
  async get(@CurrentPrincipal() actor: Principal, @Param('id', ROLLOUT_ID) id: string): Promise<RolloutView> {
    actingOrg(actor, await this.rollouts.orgOf(id));
    return this.rollouts.get(id);
  }

  @Post(':id/pause')
  @ApiOkResponse({
    description: 'the rollout, paused (also when it was paused already)',
    type: RolloutResponse,
  })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({
    summary: 'Pause: nothing more is sent; nodes of the phase under way that have not started wait',
  })
  @ApiNotFoundResponse({ description: 'no such rollout' })
  @ApiConflictResponse({ description: 'the rollout is cancelling or has ended' })
  async pause(
    @CurrentPrincipal() actor: Principal,
    @Param('id', ROLLOUT_ID) id: string,
  ): Promise<RolloutView> {
    await this.mayChange(actor, id);
    return this.rollouts.pause(id);
  }

  @Post(':id/resume')
  @ApiOkResponse({
    description: 'the rollout, running again (also when it was running already)',
    type: RolloutResponse,
  })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({ summary: 'Resume a paused rollout' })
  @ApiNotFoundResponse({ description: 'no such rollout' })
  @ApiConflictResponse({ description: 'the rollout is cancelling or has ended' })
  async resume(
    @CurrentPrincipal() actor: Principal,
    @Param('id', ROLLOUT_ID) id: string,
  ): Promise<RolloutView> {
    await this.mayChange(actor, id);
    return this.rollouts.resume(id);
  }

  @Post(':id/cancel')
  @ApiOkResponse({
    description: 'the rollout, cancelling (also when it was cancelling already): the driver ends it',
    type: RolloutResponse,
  })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({
    summary:
      'Cancel: nothing more is sent, nodes in the middle of a step finish, then no policy is left behind',
  })
  @ApiNotFoundResponse({ description: 'no such rollout' })
  @ApiConflictResponse({ description: 'the rollout has ended' })
  async cancel(
    @CurrentPrincipal() actor: Principal,
    @Param('id', ROLLOUT_ID) id: string,
  ): Promise<RolloutView> {
    await this.mayChange(actor, id);
    return this.rollouts.cancel(id);
  }

  private async mayChange(actor: Principal, id: string): Promise<void> {
    actingOrg(actor, await this.rollouts.orgOf(id));
  }
}
