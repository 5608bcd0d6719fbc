import { CurrentPrincipal, principalId, type Principal, NeedsRole, OnResource } from '@careen/auth';
import { actingOrg, IdentifierPipe, listAnswer, type ListAnswer, uuidPipe } from '@careen/service';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CreateSessionDto } from './dto/create-session.dto';
import { SessionListQuery } from './dto/session-list.query';
import { SessionListResponse, SessionResponse, SessionWithTimelineResponse } from './dto/session.response';
import { MaintenanceSessions } from './maintenance-sessions';
import { type SessionView } from './session-view';

const SESSION_ID = uuidPipe('session');

/** Operators' and admin tools' routes: sessions of the caller's org (any org for a hub admin). */
@ApiTags('maintenance')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('maintenance')
@Controller('v1/maintenance')
export class MaintenanceController {
  constructor(private readonly sessions: MaintenanceSessions) {}

  @Post()
  @ApiCreatedResponse({ description: 'the session, started', type: SessionResponse })
  @NeedsRole('operator')
  @ApiOperation({ summary: 'Start a maintenance session over hosts given by id or by selector' })
  @ApiBadRequestResponse({ description: 'every problem of the request, each with its path' })
  @ApiNotFoundResponse({ description: 'the exchange has no such org' })
  @ApiConflictResponse({ description: 'a host is in another open session: details.holders names it' })
  @ApiServiceUnavailableResponse({ description: 'the service cannot read the exchange' })
  create(@CurrentPrincipal() actor: Principal, @Body() body: CreateSessionDto): Promise<SessionView> {
    const org = actingOrg(actor, body.org);
    return this.sessions.create(org, principalId(actor), body);
  }

  @Get()
  @ApiOkResponse({ description: 'the sessions, without their timelines', type: SessionListResponse })
  @ApiOperation({ summary: "List the org's sessions, newest first" })
  async list(
    @CurrentPrincipal() actor: Principal,
    @Query() query: SessionListQuery,
  ): Promise<ListAnswer<SessionView>> {
    return listAnswer(await this.sessions.list(actingOrg(actor, query.org)));
  }

  @Get(':session')
  @ApiOkResponse({ description: 'the session, with its timeline', type: SessionWithTimelineResponse })
  @ApiOperation({ summary: 'A session: per-host and per-project progress and its timeline' })
  @ApiNotFoundResponse({ description: 'no such session' })
  async get(
    @CurrentPrincipal() actor: Principal,
    @Param('session', SESSION_ID) id: string,
  ): Promise<SessionView> {
    actingOrg(actor, await this.sessions.orgOf(id));
    return this.sessions.get(id);
  }

  @Delete(':session')
  @ApiOkResponse({ description: 'the session, aborting', type: SessionResponse })
  @NeedsRole('operator')
  @ApiOperation({ summary: 'Abort: hosts under way back in service, slots given back, projects told' })
  @ApiConflictResponse({ description: 'the session has ended' })
  async abort(
    @CurrentPrincipal() actor: Principal,
    @Param('session', SESSION_ID) id: string,
  ): Promise<SessionView> {
    actingOrg(actor, await this.sessions.orgOf(id));
    return this.sessions.abort(id);
  }

  @Post(':session/pause')
  @ApiOkResponse({ description: 'the session, paused', type: SessionResponse })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({ summary: 'Pause: nothing more is carried out until resumed (replies are still taken)' })
  @ApiConflictResponse({ description: 'the session has ended' })
  async pause(
    @CurrentPrincipal() actor: Principal,
    @Param('session', SESSION_ID) id: string,
  ): Promise<SessionView> {
    actingOrg(actor, await this.sessions.orgOf(id));
    return this.sessions.setPaused(id, true);
  }

  @Post(':session/resume')
  @ApiOkResponse({ description: 'the session, running again', type: SessionResponse })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({ summary: 'Resume a paused session' })
  @ApiConflictResponse({ description: 'the session has ended' })
  async resume(
    @CurrentPrincipal() actor: Principal,
    @Param('session', SESSION_ID) id: string,
  ): Promise<SessionView> {
    actingOrg(actor, await this.sessions.orgOf(id));
    return this.sessions.setPaused(id, false);
  }

  @Post(':session/hosts/:host/complete')
  @ApiOkResponse({ description: 'the session, the host done', type: SessionResponse })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({ summary: "Report a host's maintenance done (host_action manual or external)" })
  @ApiConflictResponse({
    description:
      'the session has ended, or the host is not one of its hosts, is not in maintenance, or its action is not reported by hand',
  })
  async complete(
    @CurrentPrincipal() actor: Principal,
    @Param('session', SESSION_ID) id: string,
    @Param('host', new IdentifierPipe('host')) host: string,
  ): Promise<SessionView> {
    actingOrg(actor, await this.sessions.orgOf(id));
    return this.sessions.completeHost(id, host, principalId(actor));
  }
}
