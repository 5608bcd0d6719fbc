import { AllowNodes, CurrentPrincipal, OrgScoped, type Principal, OnResource } from '@careen/auth';
import { IdentifierPipe } from '@careen/service';
import { Controller, Get, Param } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { assertActsForNode } from '../upgrades/upgrades.service';
import { upgradeNodeNotFound } from '../upgrades/upgrades.errors';
import { AlertWatch } from './alert-watch';
import { DisruptionOutlookReader } from './disruption-outlook';
import { DisruptionOutlookResponse } from './disruption-outlook.response';

/** Members of the org, and the node itself, read what the disruption gate says of a node. */
@ApiTags('disruption')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('disruption')
@Controller('v1/orgs/:org/nodes/:node/disruption')
export class DisruptionController {
  private readonly reader = new DisruptionOutlookReader();

  constructor(
    private readonly dataSource: DataSource,
    private readonly alerts: AlertWatch,
  ) {}

  @Get()
  @AllowNodes()
  @ApiOperation({
    summary:
      'Whether freezes, windows and budgets let a new disruption of the node start now, and when they next do',
  })
  @ApiOkResponse({ type: DisruptionOutlookResponse })
  @ApiNotFoundResponse({ description: 'the agbot knows no such node (UPGRADE_NODE_NOT_FOUND)' })
  async outlook(
    @CurrentPrincipal() actor: Principal,
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
  ): Promise<DisruptionOutlookResponse> {
    assertActsForNode(actor, node);
    const outlook = await this.reader.read(this.dataSource.manager, org, node, (url) =>
      this.alerts.answerOf(url),
    );
    if (!outlook) throw upgradeNodeNotFound(org, node);
    return DisruptionOutlookResponse.from(outlook);
  }
}
