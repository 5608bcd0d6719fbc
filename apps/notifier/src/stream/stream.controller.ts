import { CurrentPrincipal, type Principal, OnResource } from '@careen/auth';
import { DomainError, IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { actingOrg } from '@careen/service';
import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { type FastifyReply } from 'fastify';
import { OrgQuery } from '../org.query';
import { ProjectEventStream } from './project-event-stream';

export class StreamQuery extends OrgQuery {
  @ApiProperty({ example: 'shop' })
  @Matches(IDENTIFIER_PATTERN, { message: `project_id must be ${IDENTIFIER_RULE}` })
  project_id!: string;
}

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** What a client waits before it reconnects (the SSE `retry` field). */
const RETRY_MS = 2_000;

const badLastEventId = (value: string) =>
  new DomainError(
    'invalid',
    'notifier.invalid-last-event-id',
    `Last-Event-ID "${value}" is not an event id of this stream (a positive whole number)`,
    { last_event_id: value },
  );

/** A project's maintenance events as server-sent events, for any user of the org. */
@ApiTags('stream')
@ApiBearerAuth()
@ApiBasicAuth()
@OnResource('subscriptions')
@Controller('v1/stream')
export class StreamController {
  constructor(private readonly stream: ProjectEventStream) {}

  @Get()
  @ApiOperation({
    summary:
      "A project's maintenance events as server-sent events (CloudEvents JSON); resumes after Last-Event-ID",
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'the id of the last event received' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description:
      'server-sent events, open until the client hangs up: `id` the stream sequence, `event` the state, `data` the CloudEvent as JSON; a `retry` field first and a comment line every 15 s',
    schema: { type: 'string' },
  })
  @ApiBadRequestResponse({ description: 'no or a malformed project_id, a malformed Last-Event-ID' })
  async follow(
    @CurrentPrincipal() actor: Principal,
    @Query() query: StreamQuery,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const org = actingOrg(actor, query.org);
    const after = lastEventId === undefined || lastEventId === '' ? undefined : sequence(lastEventId);
    const open = await this.stream.follow(org, query.project_id, after);
    // The stream is written here, event by event, for as long as the client stays.
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.write(`retry: ${RETRY_MS}\n\n`);
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
    reply.request.raw.once('close', () => {
      clearInterval(heartbeat);
      open.close();
    });
    for await (const { sequence, event } of open.events) {
      const state = (event.data as { state?: unknown }).state;
      response.write(
        `id: ${sequence}\nevent: ${typeof state === 'string' ? state : 'message'}\ndata: ${JSON.stringify(event)}\n\n`,
      );
    }
    clearInterval(heartbeat);
    response.end();
  }
}

function sequence(value: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value)) throw badLastEventId(value);
  return Number(value);
}
