import { AllowNodes, CurrentPrincipal, OrgScoped, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { HangUp, IdentifierPipe } from '@careen/service';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { UpgradeRequestDto } from './dto/upgrade-request.dto';
import { UpgradeWaitQuery } from './dto/upgrade-wait.query';
import { UpgradeGrantResponse, UpgradeHolderListResponse } from './dto/upgrade-grant.response';
import { UpgradeGroupListResponse } from './dto/upgrade-group.response';
import { HaltResetDto } from './dto/halt-reset.dto';
import { HaltResetResponse } from './dto/halt-reset.response';
import { UpgradesService } from './upgrades.service';

/**
 * A node asks before it installs an agent upgrade and releases after; an org admin may act for
 * any node of the org. Org users see who holds slots.
 */
@ApiTags('upgrades')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('upgrades')
@Controller('v1/orgs/:org')
export class UpgradesController {
  constructor(private readonly upgrades: UpgradesService) {}

  @Post('nodes/:node/upgrade')
  @ApiOkResponse({ type: UpgradeGrantResponse, description: "the slot is the node's, with its lease" })
  @HttpCode(200)
  @AllowNodes()
  @NeedsRole('operator')
  @ApiOperation({ summary: "Ask for (or renew) the node's agent-upgrade slot in its HA group" })
  @ApiConflictResponse({
    description:
      'another member of the HA group holds the slot, or halted it (still, after `wait`): details.holder; or the policy is disabled or paused (UPGRADE_POLICY_STOPPED); or a freeze, window, alert gate or budget keeps the node from starting (DISRUPTION_GATED: details.reason, control, retryAt or holders)',
  })
  @ApiNotFoundResponse({
    description:
      'the agbot knows no such node (UPGRADE_NODE_NOT_FOUND), or with `renew` the node holds no grant for the policy (UPGRADE_NOT_HELD)',
  })
  grant(
    @CurrentPrincipal() actor: Principal,
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
    @Body() body: UpgradeRequestDto,
    @Query() query: UpgradeWaitQuery,
    @HangUp() hangUp: AbortSignal,
  ): Promise<UpgradeGrantResponse> {
    if (body.renew) return this.upgrades.renewUpgrade(actor, org, node, body.managementPolicy);
    // A caller that hangs up while waiting must not be granted a slot it will never use.
    return this.upgrades.grantUpgrade(actor, org, node, body.managementPolicy, query.wait, hangUp);
  }

  @Delete('nodes/:node/upgrade')
  @ApiNoContentResponse({ description: 'given back' })
  @HttpCode(204)
  @AllowNodes()
  @NeedsRole('operator')
  @ApiOperation({ summary: "Give the node's agent-upgrade slot back" })
  @ApiConflictResponse({
    description: 'the node halted its group (UPGRADE_GROUP_HALTED): reset its status to end the halt',
  })
  release(
    @CurrentPrincipal() actor: Principal,
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
  ): Promise<void> {
    return this.upgrades.releaseUpgrade(actor, org, node);
  }

  @Get('upgrades')
  @ApiOkResponse({ type: UpgradeHolderListResponse, description: 'every slot held in the org, oldest first' })
  @ApiOperation({ summary: 'List the holders of upgrade slots in the org' })
  list(@Param('org', new IdentifierPipe('org')) org: string): Promise<UpgradeHolderListResponse> {
    return this.upgrades.listHolders(org);
  }

  @Get('upgrade-groups')
  @ApiOkResponse({ type: UpgradeGroupListResponse, description: 'every HA group of the org, by name' })
  @ApiOperation({ summary: "List the org's HA groups with their slot: free, busy or halted, and by whom" })
  groups(@Param('org', new IdentifierPipe('org')) org: string): Promise<UpgradeGroupListResponse> {
    return this.upgrades.listGroups(org);
  }

  @Post('upgrade-groups/:haGroup/reset')
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({
    summary:
      "End the HA group's halt (or one member's), whatever became of its policy: released as an admin's reset",
  })
  @ApiOkResponse({ type: HaltResetResponse, description: 'the halts ended (none when none was left)' })
  @ApiNotFoundResponse({
    description:
      'the agbot knows no member of the group (UPGRADE_GROUP_NOT_FOUND), no such node (UPGRADE_NODE_NOT_FOUND), or the node is in another group (UPGRADE_NOT_A_MEMBER)',
  })
  resetHalts(
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('haGroup', new IdentifierPipe('haGroup')) haGroup: string,
    @Body() body: HaltResetDto,
  ): Promise<HaltResetResponse> {
    return this.upgrades.resetHalts(org, haGroup, body.node);
  }
}
