import { IdentifierPipe, listAnswer } from '@careen/service';
import { AllowNodes, CurrentPrincipal, OrgScoped, NeedsRole, type Principal, OnResource } from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put, Query, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { ListNodesQuery } from './dto/list-nodes.query';
import { NodeStatusDto } from './dto/node-status.dto';
import { NodeWorkloadsDto } from './dto/node-workloads.dto';
import {
  NodeListResponse,
  NodeResponse,
  NodeWorkloadsResponse,
  RegisteredNodeResponse,
} from './dto/node.response';
import { PolicyDto } from './dto/policy.dto';
import { RegisterNodeDto } from './dto/register-node.dto';
import { UpdateNodeDto } from './dto/update-node.dto';
import { NodesService } from './nodes.service';

@ApiTags('nodes')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('nodes')
@Controller('v1/orgs/:org/nodes')
export class NodesController {
  constructor(private readonly nodes: NodesService) {}

  /** Registers a node (users) or updates it (its registrant, an admin, or the node itself). */
  @Put(':id')
  @ApiOperation({ summary: 'Register or update a node (its token is shown once)' })
  @ApiCreatedResponse({ type: RegisteredNodeResponse, description: 'registered, with its token' })
  @ApiOkResponse({ type: RegisteredNodeResponse, description: 'an existing node updated' })
  @AllowNodes()
  @NeedsRole('operator')
  async register(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('id', new IdentifierPipe('id')) id: string,
    @Body() body: RegisterNodeDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<RegisteredNodeResponse> {
    const { created, answer } = await this.nodes.register(actor, org, id, body);
    void response.status(created ? 201 : 200);
    return answer;
  }

  @Get()
  @ApiOperation({ summary: "List the org's nodes, by HA group or label" })
  @ApiOkResponse({ type: NodeListResponse })
  list(@Param('org') org: string, @Query() query: ListNodesQuery): Promise<NodeListResponse> {
    return this.nodes.list(org, { haGroup: query.haGroup, labels: query.label });
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a node' })
  @ApiOkResponse({ type: NodeResponse })
  @AllowNodes()
  get(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
  ): Promise<NodeResponse> {
    return this.nodes.get(actor, org, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: "Change some of a node's fields (schedulable, labels, ...)" })
  @ApiOkResponse({ type: NodeResponse })
  @NeedsRole('operator')
  update(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
    @Body() body: UpdateNodeDto,
  ): Promise<NodeResponse> {
    return this.nodes.update(actor, org, id, body);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Remove a node' })
  @ApiNoContentResponse({ description: 'removed' })
  @HttpCode(204)
  @NeedsRole('operator')
  remove(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
  ): Promise<void> {
    return this.nodes.remove(actor, org, id);
  }

  @Put(':id/policy')
  @ApiOperation({ summary: "Replace a node's policy (properties and constraints)" })
  @ApiOkResponse({ type: NodeResponse })
  @AllowNodes()
  @NeedsRole('operator')
  replacePolicy(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
    @Body() body: PolicyDto,
  ): Promise<NodeResponse> {
    return this.nodes.replacePolicy(actor, org, id, body);
  }

  /** Written by the node itself only (users get 403). */
  @Put(':id/status')
  @ApiOperation({ summary: "Report the node's status (the node itself)" })
  @ApiOkResponse({ type: NodeResponse })
  @AllowNodes()
  @NeedsRole('operator')
  reportStatus(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
    @Body() body: NodeStatusDto,
  ): Promise<NodeResponse> {
    return this.nodes.reportStatus(actor, org, id, body);
  }

  @Get(':id/workloads')
  @ApiOperation({ summary: 'Read the workloads the node should run' })
  @ApiOkResponse({ type: NodeWorkloadsResponse })
  @AllowNodes()
  async desiredWorkloads(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
  ): Promise<NodeWorkloadsResponse> {
    return listAnswer(await this.nodes.desiredWorkloads(actor, org, id));
  }

  /**
   * Desired workloads are the agbot's to write. Until the agbot has an identity of its own,
   * only hub admins may write them.
   */
  @Put(':id/workloads')
  @ApiOperation({ summary: "Replace the node's desired workloads (the agbot)" })
  @ApiOkResponse({ type: NodeWorkloadsResponse })
  @NeedsRole('hubAdmin')
  async replaceDesiredWorkloads(
    @Param('org') org: string,
    @Param('id') id: string,
    @Body() body: NodeWorkloadsDto,
  ): Promise<NodeWorkloadsResponse> {
    return listAnswer(await this.nodes.replaceDesiredWorkloads(org, id, body));
  }
}
