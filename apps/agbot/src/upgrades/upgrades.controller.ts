import { AllowNodes, CurrentPrincipal, OrgScoped, type Principal, Roles } from '@careen/auth';
import { IdentifierPipe } from '@careen/service';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiConflictResponse, ApiTags } from '@nestjs/swagger';
import { type Response } from 'express';
import { UpgradeRequestDto } from './dto/upgrade-request.dto';
import { UpgradeWaitQuery } from './dto/upgrade-wait.query';
import { UpgradeGrantResponse, type UpgradeHolderListResponse } from './dto/upgrade-grant.response';
import { UpgradesService } from './upgrades.service';

/**
 * A node asks before it installs an agent upgrade and releases after; an org admin may act for
 * any node of the org. Org users see who holds slots.
 */
@ApiTags('upgrades')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@Controller('v1/orgs/:org')
export class UpgradesController {
  constructor(private readonly upgrades: UpgradesService) {}

  @Post('nodes/:node/upgrade')
  @HttpCode(200)
  @AllowNodes()
  @Roles('orgAdmin')
  @ApiConflictResponse({
    description: 'another member of the HA group holds the slot (still, after `wait`): details.holder',
  })
  grant(
    @CurrentPrincipal() actor: Principal,
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
    @Body() body: UpgradeRequestDto,
    @Query() query: UpgradeWaitQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UpgradeGrantResponse> {
    if (body.renew) return this.upgrades.renewUpgrade(actor, org, node, body.managementPolicy);
    // A caller that hangs up while waiting must not be granted a slot it will never use.
    const hangUp = new AbortController();
    response.once('close', () => hangUp.abort());
    return this.upgrades.grantUpgrade(actor, org, node, body.managementPolicy, query.wait, hangUp.signal);
  }

  @Delete('nodes/:node/upgrade')
  @HttpCode(204)
  @AllowNodes()
  @Roles('orgAdmin')
  release(
    @CurrentPrincipal() actor: Principal,
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
  ): Promise<void> {
    return this.upgrades.releaseUpgrade(actor, org, node);
  }

  @Get('upgrades')
  list(@Param('org', new IdentifierPipe('org')) org: string): Promise<UpgradeHolderListResponse> {
    return this.upgrades.listHolders(org);
  }
}
