import { Public } from '@careen/auth';
import { IdentifierPipe, uuidPipe } from '@careen/service';
import { Body, Controller, Get, Headers, HttpCode, Param, Put, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CapabilityQuery, SessionReplyDto } from './dto/session-reply.dto';
import { ProjectInstancesResponse, ReplyTakenResponse } from './dto/session.response';
import { MaintenanceSessions } from './maintenance-sessions';

const CAPABILITY_HEADER = 'x-careen-capability';

/**
 * A VNF manager's routes: the URLs its events carry. No Careen login: the capability in the URL
 * (or the X-Careen-Capability header) opens this session's project and nothing else.
 */
@ApiTags('maintenance projects')
@Public()
@ApiHeader({
  name: CAPABILITY_HEADER,
  required: false,
  description: 'the capability, instead of ?capability=',
})
@Controller('v1/maintenance/:session/:project')
export class ProjectRepliesController {
  constructor(private readonly sessions: MaintenanceSessions) {}

  @Get()
  @ApiOkResponse({
    description: "the project's instances in the session, each with its host",
    type: ProjectInstancesResponse,
  })
  // Opened by the capability (a parameter), not by a login.
  @ApiOperation({
    summary: "The project's instances in the session (the events' instance_ids URL)",
    security: [],
  })
  @ApiForbiddenResponse({ description: 'the capability does not open this project' })
  instances(
    @Param('session', uuidPipe('session')) session: string,
    @Param('project', new IdentifierPipe('project')) project: string,
    @Query() query: CapabilityQuery,
    @Headers(CAPABILITY_HEADER) header: string | undefined,
  ): Promise<ProjectInstancesResponse> {
    return this.sessions.projectInstances(session, project, query.capability ?? header);
  }

  @Put()
  @ApiOkResponse({ description: 'the reply, taken', type: ReplyTakenResponse })
  @HttpCode(200)
  @ApiOperation({
    summary: "A project's reply: ACK_<state> or NACK_<state>, with an action per instance",
    security: [],
  })
  @ApiBadRequestResponse({
    description: 'an unknown state, a foreign instance, an action the state does not allow',
  })
  @ApiForbiddenResponse({ description: 'the capability does not open this project' })
  @ApiConflictResponse({
    description: 'the state was not asked, is answered already, or the session has ended',
  })
  async reply(
    @Param('session', uuidPipe('session')) session: string,
    @Param('project', new IdentifierPipe('project')) project: string,
    @Query() query: CapabilityQuery,
    @Headers(CAPABILITY_HEADER) header: string | undefined,
    @Body() body: SessionReplyDto,
  ): Promise<ReplyTakenResponse> {
    await this.sessions.reply(session, project, body, {
      via: 'http',
      capability: query.capability ?? header,
    });
    return { session_id: session, project_id: project, state: body.state };
  }
}
