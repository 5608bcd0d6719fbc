import {
  AllowNodes,
  CurrentPrincipal,
  OrgScoped,
  type Principal,
  principalId,
  NeedsRole,
  OnResource,
} from '@careen/auth';
import { AuditTrail, IdentifierPipe } from '@careen/service';
import { Body, Controller, Delete, HttpCode, Param, Put } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { upgradeNodeNotFound } from '../upgrades/upgrades.errors';
import { assertActsForNode } from '../upgrades/upgrades.service';
import { BusyResponse, DeclareBusyDto } from './busy.dto';
import { BusyNodes } from './busy-nodes';

/** A node declares itself busy (or an operator does for it), and free again. */
@ApiTags('disruption')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('disruption')
@Controller('v1/orgs/:org/nodes/:node/busy')
export class BusyController {
  private readonly busy: BusyNodes;

  constructor(dataSource: DataSource, audit: AuditTrail) {
    this.busy = new BusyNodes(dataSource, audit);
  }

  @Put()
  @AllowNodes()
  @NeedsRole('operator')
  @ApiOperation({
    summary: 'Declare the node busy: no disruption starts on it until it is free or the time is up',
  })
  @ApiOkResponse({ type: BusyResponse })
  @ApiNotFoundResponse({ description: 'the agbot knows no such node (UPGRADE_NODE_NOT_FOUND)' })
  async declare(
    @CurrentPrincipal() actor: Principal,
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
    @Body() body: DeclareBusyDto,
  ): Promise<BusyResponse> {
    assertActsForNode(actor, node);
    const declaredBy = `${actor.kind} ${principalId(actor)}`;
    const busy = await this.busy.declare(org, node, { ...body, declaredBy });
    if (!busy) throw upgradeNodeNotFound(org, node);
    return BusyResponse.from(node, busy);
  }

  @Delete()
  @AllowNodes()
  @NeedsRole('operator')
  @HttpCode(204)
  @ApiOperation({ summary: 'Declare the node free again' })
  @ApiNoContentResponse({ description: 'free, whether or not it was busy' })
  async free(
    @CurrentPrincipal() actor: Principal,
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
  ): Promise<void> {
    assertActsForNode(actor, node);
    await this.busy.free(org, node);
  }
}
