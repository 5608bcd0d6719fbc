import { Public } from '@careen/auth';
import { Controller, HttpCode, Post, Req, UseFilters } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBody,
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  type ApiResponseOptions,
  ApiTags,
} from '@nestjs/swagger';
import { type FastifyRequest } from 'fastify';
import { FleetLockCaller } from './fleetlock-caller';
import { FleetLockErrorFilter } from './fleetlock-error.filter';
import {
  assertFleetLockHeader,
  FLEETLOCK_HEADER,
  parseFleetLockBody,
  type FleetLockClient,
} from './fleetlock-request';
import { FleetLockError } from './fleetlock.errors';
import { FleetLockService } from './fleetlock.service';
import {
  FleetLockErrorResponse,
  FleetLockReleaseResponse,
  FleetLockSlotResponse,
} from './dto/fleetlock.response';

/** Small: a FleetLock body is two short strings. */
const MAX_BODY_BYTES = 64 * 1024;

const FLEETLOCK_BODY = {
  schema: {
    type: 'object',
    required: ['client_params'],
    properties: {
      client_params: {
        type: 'object',
        required: ['id', 'group'],
        properties: {
          id: {
            type: 'string',
            description: 'the node id, in the org CAREEN_FLEETLOCK_ORG',
            example: 'edge-0042',
          },
          group: {
            type: 'string',
            description: 'the node\'s HA group, or "default" for a node in none',
            example: 'edge-group-7',
          },
        },
      },
    },
  },
};
const FLEETLOCK_HEADER_DOC = {
  name: FLEETLOCK_HEADER,
  required: true,
  description: 'must be "true" (the FleetLock protocol)',
};
/** A failure answered in the protocol's `{kind, value}`, which the shared ErrorBody must not replace. */
const fleetLockError = (status: number, description: string): ApiResponseOptions => ({
  status,
  description,
  type: FleetLockErrorResponse,
});
/** 400, also for a body that is not JSON whatever its media type (FleetLockBodyMiddleware). */
const badRequest = (kinds: string): ApiResponseOptions => fleetLockError(400, kinds);
const UNAUTHENTICATED = fleetLockError(
  401,
  'unauthenticated: no credentials from an untrusted network, or wrong ones',
);
const FORBIDDEN = fleetLockError(
  403,
  'forbidden: node credentials of another node, or a user who is not an admin of the FleetLock org',
);
const UNAVAILABLE = fleetLockError(
  503,
  'not_configured: CAREEN_FLEETLOCK_ORG is not set; unavailable: the exchange cannot check the credentials now, or the database cannot be reached (`Retry-After`)',
);

/**
 * Zincati-style reboot coordination (the FleetLock protocol). Public to the auth guard:
 * FleetLockCaller decides who may call. Bodies are read here whatever their content type, as
 * FleetLock clients (and `curl -d`) do not all send application/json.
 */
@ApiTags('fleetlock')
@ApiBasicAuth()
@ApiExtraModels(FleetLockErrorResponse)
@Public()
@UseFilters(FleetLockErrorFilter)
@Controller('v1')
export class FleetLockController {
  constructor(
    private readonly fleetLock: FleetLockService,
    private readonly caller: FleetLockCaller,
  ) {}

  @Post('pre-reboot')
  @HttpCode(200)
  @ApiOperation({
    summary: "Take a reboot slot in the node's HA group (FleetLock), shared with agent upgrades",
  })
  @ApiHeader(FLEETLOCK_HEADER_DOC)
  @ApiBody(FLEETLOCK_BODY)
  @ApiOkResponse({ type: FleetLockSlotResponse, description: 'the slot is held (taken, or taken again)' })
  @ApiResponse(
    badRequest(
      'missing_fleetlock_header, invalid_client_params (a body that is not `{client_params: {id, group}}`), or group_mismatch (group is not the node\'s HA group, or "default")',
    ),
  )
  @ApiResponse(UNAUTHENTICATED)
  @ApiResponse(FORBIDDEN)
  @ApiResponse(fleetLockError(404, 'unknown_client: id is not a node of the FleetLock org'))
  @ApiResponse(
    fleetLockError(
      409,
      'failed_lock_semaphore_full: another member reboots, upgrades its agent, or halted the group',
    ),
  )
  @ApiResponse(UNAVAILABLE)
  async preReboot(@Req() request: FastifyRequest): Promise<FleetLockSlotResponse> {
    return this.fleetLock.preReboot(await this.authorizedClient(request));
  }

  @Post('steady-state')
  @HttpCode(200)
  @ApiOperation({ summary: 'Give the reboot slot back once the node is steady again (FleetLock)' })
  @ApiHeader(FLEETLOCK_HEADER_DOC)
  @ApiBody(FLEETLOCK_BODY)
  @ApiOkResponse({
    type: FleetLockReleaseResponse,
    description: 'given back; releasing a slot not held is not an error',
  })
  @ApiResponse(
    badRequest(
      'missing_fleetlock_header, or invalid_client_params (a body that is not `{client_params: {id, group}}`)',
    ),
  )
  @ApiResponse(UNAUTHENTICATED)
  @ApiResponse(FORBIDDEN)
  @ApiResponse(UNAVAILABLE)
  async steadyState(@Req() request: FastifyRequest): Promise<FleetLockReleaseResponse> {
    return this.fleetLock.steadyState(await this.authorizedClient(request));
  }

  private async authorizedClient(request: FastifyRequest): Promise<FleetLockClient> {
    assertFleetLockHeader(request.headers[FLEETLOCK_HEADER]);
    const org = this.fleetLock.org();
    const client = parseFleetLockBody(await readBody(request));
    await this.caller.assertMayActFor(
      { authorization: request.headers.authorization, remoteAddress: request.socket.remoteAddress },
      org,
      client.id,
    );
    return client;
  }
}

/** The JSON body, read and parsed here: the app's parser never takes it (FleetLockBodyMiddleware). */
async function readBody(request: FastifyRequest): Promise<unknown> {
  if (request.raw.readableEnded) return request.body;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new FleetLockError('invalid_client_params', `request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new FleetLockError('invalid_client_params', 'invalid request body: not JSON');
  }
}
