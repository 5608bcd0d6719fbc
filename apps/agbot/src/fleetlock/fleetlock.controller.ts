import { Public } from '@careen/auth';
import { Controller, HttpCode, Post, Req, UseFilters } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBody,
  ApiConflictResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { type Request } from 'express';
import { FleetLockCaller } from './fleetlock-caller';
import { FleetLockErrorFilter } from './fleetlock-error.filter';
import {
  assertFleetLockHeader,
  FLEETLOCK_HEADER,
  parseFleetLockBody,
  type FleetLockClient,
} from './fleetlock-request';
import { FleetLockError } from './fleetlock.errors';
import { FleetLockService, type FleetLockSlot } from './fleetlock.service';

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
const FLEETLOCK_ERROR = {
  description:
    'FleetLock error `{kind, value}`: missing_fleetlock_header, invalid_client_params or group_mismatch (400), unauthenticated (401), forbidden (403), unknown_client (404), not_configured (503)',
};

/**
 * Zincati-style reboot coordination (the FleetLock protocol). Public to the auth guard:
 * FleetLockCaller decides who may call. Bodies are read whatever their content type, as
 * FleetLock clients (and `curl -d`) do not all send application/json.
 */
@ApiTags('fleetlock')
@ApiBasicAuth()
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
  @ApiOkResponse({ description: 'the slot is held: `{id, group, leaseExpiresAt}`' })
  @ApiConflictResponse({
    description: 'failed_lock_semaphore_full: another member reboots, upgrades, or halted the group',
  })
  @ApiBadRequestResponse(FLEETLOCK_ERROR)
  async preReboot(@Req() request: Request): Promise<FleetLockSlot> {
    return this.fleetLock.preReboot(await this.authorizedClient(request));
  }

  @Post('steady-state')
  @HttpCode(200)
  @ApiOperation({ summary: 'Give the reboot slot back once the node is steady again (FleetLock)' })
  @ApiHeader(FLEETLOCK_HEADER_DOC)
  @ApiBody(FLEETLOCK_BODY)
  @ApiOkResponse({ description: '`{id, group, released}`; releasing a slot not held is not an error' })
  @ApiBadRequestResponse(FLEETLOCK_ERROR)
  async steadyState(@Req() request: Request): Promise<{ id: string; group: string; released: boolean }> {
    return this.fleetLock.steadyState(await this.authorizedClient(request));
  }

  private async authorizedClient(request: Request): Promise<FleetLockClient> {
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

/** The JSON body: as parsed by the app when sent as JSON, otherwise read and parsed here. */
async function readBody(request: Request): Promise<unknown> {
  if (request.readableEnded || request.body !== undefined) return request.body as unknown;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
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
