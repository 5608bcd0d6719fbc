import { AllowNodes, CurrentPrincipal, OrgScoped, type Principal } from '@careen/auth';
import { Body, Controller, ForbiddenException, Get, Param, Put } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ManagementStatusDto } from './dto/management-status.dto';
import { ManagementStatusResponse } from './dto/management-status.response';
import { ManagementStatusService } from './management-status.service';

@ApiTags('management-policies')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@AllowNodes()
@Controller('v1/orgs/:org/nodes/:node/managementStatus/:nmp')
export class ManagementStatusController {
  constructor(private readonly statuses: ManagementStatusService) {}

  @Put()
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
  get(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('node') node: string,
    @Param('nmp') nmp: string,
  ): Promise<ManagementStatusResponse> {
    if (actor.kind === 'node' && actor.node !== node)
      throw new ForbiddenException('a node may read only its own management status');
    return this.statuses.get(org, node, nmp);
  }
}
