import { OrgScoped, OnResource } from '@careen/auth';
import { IdentifierPipe, listAnswer } from '@careen/service';
import { Controller, Get, Param } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FleetLockWaiterListResponse, FleetLockWaiterResponse } from './dto/fleetlock-waiter.response';
import { FleetLockWaiters } from './fleetlock-waiters';

/** Org users see which FleetLock clients wait for their HA group's slot. */
@ApiTags('fleetlock')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('maintenance')
@Controller('v1/orgs/:org')
export class FleetLockWaitersController {
  constructor(private readonly waiters: FleetLockWaiters) {}

  @Get('fleetlock-waiters')
  @ApiOperation({
    summary: 'List the FleetLock clients refused a reboot slot that still ask for one, oldest wait first',
  })
  @ApiOkResponse({ type: FleetLockWaiterListResponse })
  async list(@Param('org', new IdentifierPipe('org')) org: string): Promise<FleetLockWaiterListResponse> {
    return listAnswer(
      (await this.waiters.waiting(org)).map((waiter) => FleetLockWaiterResponse.from(waiter)),
    );
  }
}
