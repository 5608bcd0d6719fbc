import { OrgScoped, NeedsRole, OnResource } from '@careen/auth';
import { IdentifierPipe } from '@careen/service';
import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { DisruptionControlsService } from './disruption-controls.service';
import {
  BudgetListResponse,
  BudgetResponse,
  FreezeListResponse,
  FreezeResponse,
  GateListResponse,
  GateResponse,
  WindowListResponse,
  WindowResponse,
} from './dto/disruption-control.response';
import { CalendarQuery } from './dto/calendar.query';
import { CalendarResponse } from './dto/calendar.response';
import { PutBudgetDto } from './dto/put-budget.dto';
import { PutFreezeDto } from './dto/put-freeze.dto';
import { PutGateDto } from './dto/put-gate.dto';
import { PutWindowDto } from './dto/put-window.dto';

const NOT_FOUND = 'no such org or control: DISRUPTION_CONTROL_NOT_FOUND';

/**
 * Maintenance windows, freezes, budgets and alert gates (docs/operations.md, Disruption control): org admins
 * write them, members of the org read them; the agbot's gate enforces them.
 */
@ApiTags('disruption')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('disruption')
@Controller('v1/orgs/:org')
export class DisruptionControlsController {
  constructor(private readonly controls: DisruptionControlsService) {}

  @Get('disruption-calendar')
  @ApiOperation({
    summary: "The org's maintenance windows with their openings, and its freezes, over a span of days",
  })
  @ApiOkResponse({ type: CalendarResponse })
  @ApiNotFoundResponse({ description: 'no such org' })
  async calendar(@Param('org') org: string, @Query() query: CalendarQuery): Promise<CalendarResponse> {
    const from = query.from ? new Date(query.from) : new Date();
    return CalendarResponse.from(await this.controls.calendar(org, from, query.days ?? 7));
  }

  @Put('windows/:name')
  @ApiOperation({ summary: 'Create or replace a maintenance window' })
  @ApiCreatedResponse({ type: WindowResponse, description: 'created' })
  @ApiOkResponse({ type: WindowResponse, description: 'replaced' })
  @NeedsRole('orgAdmin')
  async putWindow(
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: PutWindowDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<WindowResponse> {
    return answered(await this.controls.put(org, 'window', name, body), response);
  }

  @Get('windows')
  @ApiOperation({ summary: "List the org's maintenance windows" })
  @ApiOkResponse({ type: WindowListResponse })
  listWindows(@Param('org') org: string): Promise<WindowListResponse> {
    return this.controls.list(org, 'window');
  }

  @Get('windows/:name')
  @ApiOperation({ summary: 'Read a maintenance window' })
  @ApiOkResponse({ type: WindowResponse })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  getWindow(@Param('org') org: string, @Param('name') name: string): Promise<WindowResponse> {
    return this.controls.get(org, 'window', name);
  }

  @Delete('windows/:name')
  @ApiOperation({ summary: 'Remove a maintenance window' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @NeedsRole('orgAdmin')
  @HttpCode(204)
  removeWindow(@Param('org') org: string, @Param('name') name: string): Promise<void> {
    return this.controls.remove(org, 'window', name);
  }

  @Put('freezes/:name')
  @ApiOperation({ summary: 'Create or replace a freeze' })
  @ApiCreatedResponse({ type: FreezeResponse, description: 'created' })
  @ApiOkResponse({ type: FreezeResponse, description: 'replaced' })
  @NeedsRole('orgAdmin')
  async putFreeze(
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: PutFreezeDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<FreezeResponse> {
    return answered(await this.controls.put(org, 'freeze', name, body), response);
  }

  @Get('freezes')
  @ApiOperation({ summary: "List the org's freezes" })
  @ApiOkResponse({ type: FreezeListResponse })
  listFreezes(@Param('org') org: string): Promise<FreezeListResponse> {
    return this.controls.list(org, 'freeze');
  }

  @Get('freezes/:name')
  @ApiOperation({ summary: 'Read a freeze' })
  @ApiOkResponse({ type: FreezeResponse })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  getFreeze(@Param('org') org: string, @Param('name') name: string): Promise<FreezeResponse> {
    return this.controls.get(org, 'freeze', name);
  }

  @Delete('freezes/:name')
  @ApiOperation({ summary: 'Remove a freeze' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @NeedsRole('orgAdmin')
  @HttpCode(204)
  removeFreeze(@Param('org') org: string, @Param('name') name: string): Promise<void> {
    return this.controls.remove(org, 'freeze', name);
  }

  @Put('budgets/:name')
  @ApiOperation({ summary: 'Create or replace a disruption budget' })
  @ApiCreatedResponse({ type: BudgetResponse, description: 'created' })
  @ApiOkResponse({ type: BudgetResponse, description: 'replaced' })
  @NeedsRole('orgAdmin')
  async putBudget(
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: PutBudgetDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<BudgetResponse> {
    return answered(await this.controls.put(org, 'budget', name, body), response);
  }

  @Get('budgets')
  @ApiOperation({ summary: "List the org's disruption budgets" })
  @ApiOkResponse({ type: BudgetListResponse })
  listBudgets(@Param('org') org: string): Promise<BudgetListResponse> {
    return this.controls.list(org, 'budget');
  }

  @Get('budgets/:name')
  @ApiOperation({ summary: 'Read a disruption budget' })
  @ApiOkResponse({ type: BudgetResponse })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  getBudget(@Param('org') org: string, @Param('name') name: string): Promise<BudgetResponse> {
    return this.controls.get(org, 'budget', name);
  }

  @Delete('budgets/:name')
  @ApiOperation({ summary: 'Remove a disruption budget' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @NeedsRole('orgAdmin')
  @HttpCode(204)
  removeBudget(@Param('org') org: string, @Param('name') name: string): Promise<void> {
    return this.controls.remove(org, 'budget', name);
  }

  @Put('gates/:name')
  @ApiOperation({ summary: 'Create or replace a Prometheus alert gate' })
  @ApiCreatedResponse({ type: GateResponse, description: 'created' })
  @ApiOkResponse({ type: GateResponse, description: 'replaced' })
  @NeedsRole('orgAdmin')
  async putGate(
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: PutGateDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<GateResponse> {
    return answered(await this.controls.put(org, 'gate', name, body), response);
  }

  @Get('gates')
  @ApiOperation({ summary: "List the org's alert gates" })
  @ApiOkResponse({ type: GateListResponse })
  listGates(@Param('org') org: string): Promise<GateListResponse> {
    return this.controls.list(org, 'gate');
  }

  @Get('gates/:name')
  @ApiOperation({ summary: 'Read an alert gate' })
  @ApiOkResponse({ type: GateResponse })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  getGate(@Param('org') org: string, @Param('name') name: string): Promise<GateResponse> {
    return this.controls.get(org, 'gate', name);
  }

  @Delete('gates/:name')
  @ApiOperation({ summary: 'Remove an alert gate' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @NeedsRole('orgAdmin')
  @HttpCode(204)
  removeGate(@Param('org') org: string, @Param('name') name: string): Promise<void> {
    return this.controls.remove(org, 'gate', name);
  }
}

/** 201 for a control created, 200 for one replaced. */
function answered<T>(put: { created: boolean; control: T }, response: FastifyReply): T {
  void response.status(put.created ? 201 : 200);
  return put.control;
}
