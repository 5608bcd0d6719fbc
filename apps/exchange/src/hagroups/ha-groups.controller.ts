import { CurrentPrincipal, OrgScoped, type Principal } from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateHaGroupDto, ReplaceHaGroupDto } from './dto/ha-group.dto';
import { type HaGroupListResponse, HaGroupResponse } from './dto/ha-group.response';
import { HaGroupsService } from './ha-groups.service';

/** Users of the org manage groups of the nodes they may modify; nodes have no access here. */
@ApiTags('hagroups')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@Controller('v1/orgs/:org/hagroups')
export class HaGroupsController {
  constructor(private readonly groups: HaGroupsService) {}

  @Post()
  @ApiOperation({ summary: 'Form an HA group' })
  create(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Body() body: CreateHaGroupDto,
  ): Promise<HaGroupResponse> {
    return this.groups.create(actor, org, body);
  }

  @Get()
  @ApiOperation({ summary: "List the org's HA groups" })
  list(@Param('org') org: string): Promise<HaGroupListResponse> {
    return this.groups.list(org);
  }

  @Get(':name')
  @ApiOperation({ summary: 'Read an HA group' })
  get(@Param('org') org: string, @Param('name') name: string): Promise<HaGroupResponse> {
    return this.groups.get(org, name);
  }

  @Put(':name')
  @ApiOperation({ summary: "Replace an HA group's members and description" })
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
  @HttpCode(204)
  remove(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name') name: string,
  ): Promise<void> {
    return this.groups.remove(actor, org, name);
  }
}
