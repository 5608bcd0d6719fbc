import { OrgScoped, OnResource } from '@careen/auth';
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
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { PlacementStore } from '../placement/placement-store';
import { upgradeNodeNotFound } from '../upgrades/upgrades.errors';
import { NodePlacementResponse } from './dto/node-placement.response';

/**
 * What placement wants a node to run, for whoever must know when a node serves again (a
 * maintenance session keeps its host's HA-group slot until the host runs these).
 */
@ApiTags('rollouts')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('rollouts')
@Controller('v1/orgs/:org/nodes/:node/placement')
export class NodePlacementController {
  private readonly store: PlacementStore;

  constructor(
    dataSource: DataSource,
    private readonly mirror: ExchangeMirror,
  ) {
    this.store = new PlacementStore(dataSource);
  }

  @Get()
  @ApiOperation({ summary: "Read the node's desired workloads as placement last decided them" })
  @ApiOkResponse({ type: NodePlacementResponse })
  @ApiNotFoundResponse({ description: 'the agbot knows no such node (UPGRADE_NODE_NOT_FOUND)' })
  async read(
    @Param('org', new IdentifierPipe('org')) org: string,
    @Param('node', new IdentifierPipe('node')) node: string,
  ): Promise<NodePlacementResponse> {
    const placed = await this.store.placedOn(org, node);
    if (placed)
      return {
        node,
        schedulable: placed.schedulable,
        workloads: placed.workloads.map((each) => ({
          deploymentPolicy: each.deploymentPolicy,
          service: each.service,
        })),
        delivered: placed.published,
        placedAt: placed.updatedAt.toISOString(),
      };
    // Never placed on: nothing is wanted there, whatever state the mirror has it in.
    const [mirrored] = await this.mirror.findNodes([[org, node]]);
    if (!mirrored) throw upgradeNodeNotFound(org, node);
    return { node, schedulable: mirrored.schedulable, workloads: [], delivered: true, placedAt: null };
  }
}
