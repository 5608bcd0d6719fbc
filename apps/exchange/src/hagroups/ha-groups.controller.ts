import { CurrentPrincipal, OrgScoped, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CreateHaGroupDto, ReplaceHaGroupDto } from './dto/ha-group.dto';
import { HaGroupListResponse, HaGroupResponse } from './dto/ha-group.response';
import { HaGroupsService } from './ha-groups.service';

/** Users of the org manage groups of the nodes they may modify; nodes have no access here. */
@ApiTags('hagroups')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('hagroups')
@Controller('v1/orgs/:org/hagroups')
export class HaGroupsController {
  constructor(private readonly groups: HaGroupsService) {}

  @Post()
  @ApiOperation({ summary: 'Form an HA group' })
  @ApiCreatedResponse({ type: HaGroupResponse })
  @ApiConflictResponse({
    description:
      'a group of that name exists (HA_GROUP_EXISTS), or a listed node is in another group (NODE_IN_ANOTHER_HA_GROUP, `details` names both)',
  })
  @ApiNotFoundResponse({
    description:
      'no such org, or a listed node is not in it (HA_GROUP_NODE_NOT_FOUND, `details.nodes` names them)',
  })
  @NeedsRole('operator')
  create(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Body() body: CreateHaGroupDto,
  ): Promise<HaGroupResponse> {
    return this.groups.create(actor, org, body);
  }

  @Get()
  @ApiOperation({ summary: "List the org's HA groups" })
  @ApiOkResponse({ type: HaGroupListResponse })
  list(@Param('org') org: string): Promise<HaGroupListResponse> {
    return this.groups.list(org);
  }

  @Get(':name')
  @ApiOperation({ summary: 'Read an HA group' })
  @ApiOkResponse({ type: HaGroupResponse })
  get(@Param('org') org: string, @Param('name') name: string): Promise<HaGroupResponse> {
    return this.groups.get(org, name);
  }

  @Put(':name')
  @ApiOperation({ summary: "Replace an HA group's members and description" })
  @ApiOkResponse({ type: HaGroupResponse })
  @ApiConflictResponse({
    description: 'a listed node is in another group: NODE_IN_ANOTHER_HA_GROUP, `details` names both',
  })
  @ApiNotFoundResponse({
    description:
      'no such group (HA_GROUP_NOT_FOUND), or a listed node is not in the org (HA_GROUP_NODE_NOT_FOUND, `details.nodes` names them)',
  })
  @NeedsRole('operator')
  replace(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name') name: string,
    @Body() body: ReplaceHaGroupDto,
  ): Promise<HaGroupResponse> {
    return this.groups.replace(actor, org, name, body);
  }

  @Delete(':name')
  @ApiOperation({ summary: 'Dissolve an HA group' })
  @ApiNoContentResponse({ description: 'dissolved; its members left it' })
  @HttpCode(204)
  @NeedsRole('operator')
  remove(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name') name: string,
  ): Promise<void> {
    return this.groups.remove(actor, org, name);
  }
}
