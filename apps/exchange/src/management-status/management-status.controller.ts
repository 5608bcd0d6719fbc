import { AllowNodes, CurrentPrincipal, OrgScoped, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ManagementStatusDto } from './dto/management-status.dto';
import { ManagementStatusResponse } from './dto/management-status.response';
import { ManagementStatusService } from './management-status.service';

@ApiTags('management-policies')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@AllowNodes()
@OnResource('nodes')
@Controller('v1/orgs/:org/nodes/:node/managementStatus/:nmp')
export class ManagementStatusController {
  constructor(private readonly statuses: ManagementStatusService) {}

  @Put()
  @ApiOkResponse({ type: ManagementStatusResponse, description: 'the status as recorded' })
  @ApiForbiddenResponse({
    description:
      'the caller may not do this (another org), or the status is not theirs to write — a node writing for another node, a user not an org admin, an admin writing anything but reset: MANAGEMENT_STATUS_NOT_YOURS',
  })
  @ApiOperation({ summary: "Report the node's status for a management policy (an admin may only reset it)" })
  @ApiConflictResponse({
    description:
      'a new step (downloading, initiated) of a policy that is disabled or paused: MANAGEMENT_POLICY_STOPPED',
  })
  @NeedsRole('orgAdmin')
  put(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('node') node: string,
    @Param('nmp') nmp: string,
    @Body() body: ManagementStatusDto,
  ): Promise<ManagementStatusResponse> {
    return this.statuses.put(actor, org, node, nmp, body);
  }

  @Get()
  @ApiOperation({ summary: "Read the node's status for a management policy" })
  @ApiOkResponse({ type: ManagementStatusResponse })
  @ApiForbiddenResponse({
    description:
      'the caller may not do this (another org), or a node reads the status of another node: MANAGEMENT_STATUS_NOT_YOURS',
  })
  get(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('node') node: string,
    @Param('nmp') nmp: string,
  ): Promise<ManagementStatusResponse> {
    return this.statuses.get(actor, org, node, nmp);
  }
}
