import {
  assertProject,
  CurrentPrincipal,
  NeedsRole,
  OnResource,
  principalId,
  ProjectScoped,
  type Principal,
} from '@careen/auth';
import { actingOrg, IdentifierPipe, listAnswer, type ListAnswer } from '@careen/service';
import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBasicAuth,
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { ConstraintsStore } from './constraints.store';
import { visibleProjects } from './project-access';
import { ConstraintListQuery, ConstraintOrgQuery } from './dto/constraint-list.query';
import { InstanceGroupListResponse, InstanceGroupResponse } from './dto/constraint.response';
import { CONSTRAINT_ID_PATTERN, CONSTRAINT_ID_RULE, InstanceGroupDto } from './dto/instance-group.dto';

const GROUP_ID = new IdentifierPipe('group_id', CONSTRAINT_ID_PATTERN, CONSTRAINT_ID_RULE);

/** Fenix's instance-group constraints, at Fenix's path: what a project's VNF manager declares. */
@ApiTags('constraints')
@ApiBearerAuth()
@ApiBasicAuth()
@ApiSecurity('X-Auth-Token')
@OnResource('maintenance')
@ProjectScoped()
@Controller('v1/instance_group')
export class InstanceGroupsController {
  constructor(private readonly store: ConstraintsStore) {}

  @Get()
  @ApiOperation({ summary: "The org's instance groups, or one project's" })
  @ApiOkResponse({ type: InstanceGroupListResponse })
  async list(
    @CurrentPrincipal() actor: Principal,
    @Query() query: ConstraintListQuery,
  ): Promise<ListAnswer<InstanceGroupResponse>> {
    const org = actingOrg(actor, query.org);
    return listAnswer(await this.store.groups(org, visibleProjects(actor, query.project_id)));
  }

  @Put(':group')
  @NeedsRole('operator')
  @ApiOperation({ summary: "Declare or change an instance group's constraints (Fenix's body)" })
  @ApiOkResponse({ type: InstanceGroupResponse })
  @ApiBadRequestResponse({
    description: "a field missing, unknown or out of range, or a group_id not the path's",
  })
  @ApiConflictResponse({ description: 'the group is declared by another project' })
  put(
    @CurrentPrincipal() actor: Principal,
    @Param('group', GROUP_ID) id: string,
    @Query() query: ConstraintOrgQuery,
    @Body() body: InstanceGroupDto,
  ): Promise<InstanceGroupResponse> {
    const org = actingOrg(actor, query.org);
    assertProject(actor, body.project_id);
    return this.store.putGroup(org, id, body, principalId(actor));
  }

  @Get(':group')
  @ApiOperation({ summary: "An instance group's constraints" })
  @ApiOkResponse({ type: InstanceGroupResponse })
  @ApiNotFoundResponse({ description: 'no such group in the org' })
  async get(
    @CurrentPrincipal() actor: Principal,
    @Param('group', GROUP_ID) id: string,
    @Query() query: ConstraintOrgQuery,
  ): Promise<InstanceGroupResponse> {
    const declared = await this.store.group(actingOrg(actor, query.org), id);
    assertProject(actor, declared.project_id);
    return declared;
  }

  @Delete(':group')
  @HttpCode(204)
  @NeedsRole('operator')
  @ApiOperation({ summary: 'Remove an instance group (once none of its instances is declared)' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: 'no such group in the org' })
  @ApiConflictResponse({ description: 'instances still name the group' })
  async remove(
    @CurrentPrincipal() actor: Principal,
    @Param('group', GROUP_ID) id: string,
    @Query() query: ConstraintOrgQuery,
  ): Promise<void> {
    await this.store.removeGroup(actingOrg(actor, query.org), id, (project) => assertProject(actor, project));
  }
}
