import { OrgScoped, NeedsRole, OnResource } from '@careen/auth';
import { HangUp, IdentifierPipe } from '@careen/service';
import { Body, Controller, Delete, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { MaintenanceSlotRequestDto } from './dto/maintenance-slot-request.dto';
import { UpgradeGrantResponse } from './dto/upgrade-grant.response';
import { UpgradeWaitQuery } from './dto/upgrade-wait.query';
import { UpgradesService } from './upgrades.service';

/**
 * A maintenance session (or an admin tool) takes a host's slot in its HA group before the host
 * goes into maintenance and gives it back once the host serves again: the semaphore that agent
 * upgrades and FleetLock reboots take keeps every kind of disruption to one member at a time.
 */
@ApiTags('upgrades')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('maintenance')
@Controller('v1/orgs/:org/nodes/:node/maintenance-slot')
export class MaintenanceSlotsController {
  constructor(private readonly upgrades: UpgradesService) {}

  @Post()
  @ApiOkResponse({ type: UpgradeGrantResponse, description: "the slot is the node's, with its lease" })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({ summary: "Take (or renew) the node's maintenance slot in its HA group" })
  @ApiConflictResponse({
    description:
      'another member of the HA group holds a slot of any kind (still, after `wait`): details.holder; or a freeze, window, alert gate or budget keeps the node from starting (DISRUPTION_GATED: details.reason, control, retryAt or holders)',
  })
  take(
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
    @Body() body: MaintenanceSlotRequestDto,
    @Query() query: UpgradeWaitQuery,
    @HangUp() hangUp: AbortSignal,
  ): Promise<UpgradeGrantResponse> {
    return this.upgrades.grantMaintenance(org, node, body.leaseSeconds, query.wait, hangUp);
  }

  @Delete()
  @ApiNoContentResponse({ description: 'given back, or none was held' })
  @HttpCode(204)
  @NeedsRole('operator')
  @ApiOperation({ summary: "Give the node's maintenance slot back (nothing to do when it holds none)" })
  release(
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
  ): Promise<void> {
    return this.upgrades.releaseMaintenance(org, node);
  }
}
