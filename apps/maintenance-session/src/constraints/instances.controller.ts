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
import { InstanceConstraintListResponse, InstanceConstraintResponse } from './dto/constraint.response';
import { CONSTRAINT_ID_PATTERN, CONSTRAINT_ID_RULE, InstanceConstraintDto } from './dto/instance-group.dto';

const INSTANCE_ID = new IdentifierPipe('instance_id', CONSTRAINT_ID_PATTERN, CONSTRAINT_ID_RULE);

/** Fenix's per-instance constraints, at Fenix's path: what a project's VNF manager declares. */
@ApiTags('constraints')
@ApiBearerAuth()
@ApiBasicAuth()
@ApiSecurity('X-Auth-Token')
@OnResource('maintenance')
@ProjectScoped()
@Controller('v1/instance')
export class InstancesController {
  constructor(private readonly store: ConstraintsStore) {}

  @Get()
  @ApiOperation({ summary: "The org's declared instances, or one project's" })
  @ApiOkResponse({ type: InstanceConstraintListResponse })
  async list(
    @CurrentPrincipal() actor: Principal,
    @Query() query: ConstraintListQuery,
  ): Promise<ListAnswer<InstanceConstraintResponse>> {
    const org = actingOrg(actor, query.org);
    return listAnswer(await this.store.instances(org, visibleProjects(actor, query.project_id)));
  }

  @Put(':instance')
  @NeedsRole('operator')
  @ApiOperation({ summary: "Declare or change an instance's constraints (Fenix's body)" })
  @ApiOkResponse({ type: InstanceConstraintResponse })
  @ApiBadRequestResponse({
    description:
      "a field missing, unknown or out of range, or an instance_id not the path's, or a group_id naming no group",
  })
  @ApiConflictResponse({ description: 'the instance, or its group, is declared by another project' })
  put(
    @CurrentPrincipal() actor: Principal,
    @Param('instance', INSTANCE_ID) id: string,
    @Query() query: ConstraintOrgQuery,
    @Body() body: InstanceConstraintDto,
  ): Promise<InstanceConstraintResponse> {
    const org = actingOrg(actor, query.org);
    assertProject(actor, body.project_id);
    return this.store.putInstance(org, id, body, principalId(actor));
  }

  @Get(':instance')
  @ApiOperation({ summary: "An instance's constraints" })
  @ApiOkResponse({ type: InstanceConstraintResponse })
  @ApiNotFoundResponse({ description: 'no such instance declared in the org' })
  async get(
    @CurrentPrincipal() actor: Principal,
    @Param('instance', INSTANCE_ID) id: string,
    @Query() query: ConstraintOrgQuery,
  ): Promise<InstanceConstraintResponse> {
    const declared = await this.store.instance(actingOrg(actor, query.org), id);
    assertProject(actor, declared.project_id);
    return declared;
  }

  @Delete(':instance')
  @HttpCode(204)
  @NeedsRole('operator')
  @ApiOperation({ summary: "Remove an instance's constraints" })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: 'no such instance declared in the org' })
  async remove(
    @CurrentPrincipal() actor: Principal,
    @Param('instance', INSTANCE_ID) id: string,
    @Query() query: ConstraintOrgQuery,
  ): Promise<void> {
    await this.store.removeInstance(actingOrg(actor, query.org), id, (project) =>
      assertProject(actor, project),
    );
  }
}
