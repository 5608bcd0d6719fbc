import { AllowNodes, CurrentPrincipal, NeedsRole, type Principal } from '@careen/auth';
import {
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Req,
  Res,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiResponse,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { errorBody } from '@careen/service';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { AgentPackagesService } from './agent-packages.service';
import { AgentPackageListResponse, AgentPackageResponse } from './dto/agent-package.response';
import { ifRangeHolds, resolveRange } from './http-range';
import { parseSignatureHeader, SIGNATURE_HEADER } from './package-signature';

const PACKAGE_MEDIA_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'];

@ApiTags('agent-packages')
@ApiBearerAuth()
@ApiBasicAuth()
@Controller('v1/agent-packages')
export class AgentPackagesController {
  constructor(private readonly packages: AgentPackagesService) {}

  /** The request body is the .tar.gz itself, streamed; not JSON. */
  @Post()
  @ApiOperation({ summary: 'Upload an agent package (.tar.gz)' })
  @NeedsRole('hubAdmin')
  @ApiConsumes(...PACKAGE_MEDIA_TYPES)
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiHeader({ name: SIGNATURE_HEADER, required: false, description: 'base64 ed25519 signature of the body' })
  @ApiCreatedResponse({ type: AgentPackageResponse })
  @ApiBadRequestResponse({
    description:
      'not an agent package (PACKAGE_NOT_GZIP, PACKAGE_TRUNCATED, PACKAGE_NOT_TAR, PACKAGE_MANIFEST_MISSING, PACKAGE_MANIFEST_INVALID, PACKAGE_UNEXPECTED_ENTRY, PACKAGE_UNSAFE_ENTRY), a malformed signature header (PACKAGE_SIGNATURE_INVALID), or an upload cut short (PACKAGE_UPLOAD_INTERRUPTED)',
  })
  @ApiConflictResponse({
    description: 'a package of this version, or of the same semver precedence, exists: PACKAGE_EXISTS',
  })
  @ApiPayloadTooLargeResponse({
    description: "the package is over the exchange's limit for agent packages: PACKAGE_TOO_LARGE",
  })
  @ApiUnsupportedMediaTypeResponse({
    description: `the body is not sent as ${PACKAGE_MEDIA_TYPES.join(', ')}`,
  })
  async publish(
    @CurrentPrincipal() actor: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<AgentPackageResponse> {
    try {
      const mediaType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (!mediaType || !PACKAGE_MEDIA_TYPES.includes(mediaType)) {
        throw new UnsupportedMediaTypeException(
          `send the package as ${PACKAGE_MEDIA_TYPES.join(' or ')}, not ${mediaType ?? 'no content type'}`,
        );
      }
      const length = request.headers['content-length'];
      return await this.packages.publish(actor, {
        body: request.raw,
        declaredLength: length === undefined ? undefined : Number(length),
        signature: parseSignatureHeader(request.headers[SIGNATURE_HEADER]),
      });
    } catch (error) {
      // A refused upload may still be arriving: close the connection after the answer
      // rather than reading the rest of it.
      if (!request.raw.complete) void response.header('Connection', 'close');
      throw error;
    }
  }

  @Get()
  @ApiOperation({ summary: 'List the agent packages, newest version first' })
  @AllowNodes()
  @ApiOkResponse({ type: AgentPackageListResponse })
  list(): Promise<AgentPackageListResponse> {
    return this.packages.list();
  }

  @Get(':version')
  @ApiOperation({ summary: 'Read an agent package' })
  @AllowNodes()
  @ApiOkResponse({ type: AgentPackageResponse })
  get(@Param('version') version: string): Promise<AgentPackageResponse> {
    return this.packages.get(version);
  }

  @Delete(':version')
  @ApiNoContentResponse({ description: 'removed' })
  @NeedsRole('hubAdmin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an agent package and its bytes' })
  @ApiConflictResponse({ description: 'an enabled management policy names this version: PACKAGE_IN_USE' })
  remove(@Param('version') version: string): Promise<void> {
    return this.packages.remove(version);
  }

  /** The .tar.gz, resumable with `Range` (one range) and `If-Range`. */
  @Get(':version/content')
  @ApiOperation({ summary: "Download an agent package's bytes, resumable with Range" })
  @AllowNodes()
  @ApiProduces('application/gzip')
  @ApiHeader({
    name: 'range',
    required: false,
    description: 'one byte range: bytes=a-b, bytes=a- or bytes=-n',
  })
  @ApiHeader({
    name: 'if-range',
    required: false,
    description: 'the ETag the client holds: the range applies only while it is still the one served',
  })
  @ApiOkResponse({
    description:
      'the whole package: no Range, one the exchange does not serve (several ranges, another unit, malformed), or an If-Range that no longer holds',
    schema: { type: 'string', format: 'binary' },
    headers: {
      ETag: { description: 'the quoted sha256 of the package', schema: { type: 'string' } },
      'Accept-Ranges': { schema: { type: 'string', enum: ['bytes'] } },
    },
  })
  @ApiResponse({
    status: 206,
    description: 'the bytes of the range asked for',
    schema: { type: 'string', format: 'binary' },
    headers: {
      'Content-Range': { description: 'bytes start-end/size', schema: { type: 'string' } },
      ETag: { description: 'the quoted sha256 of the package', schema: { type: 'string' } },
    },
  })
  @ApiResponse({
    status: 416,
    description: 'the range starts at or past the end of the package (or asks for its last 0 bytes)',
    headers: { 'Content-Range': { description: 'bytes */size', schema: { type: 'string' } } },
  })
  async download(
    @Param('version') version: string,
    @Headers('if-range') ifRange: string | undefined,
    @Req() request: FastifyRequest,
    @Res() response: FastifyReply,
  ): Promise<void> {
    const content = await this.packages.openContent(version);
    const { size, sha256 } = content.package;
    const etag = `"${sha256}"`;
    const range = ifRangeHolds(ifRange, etag)
      ? resolveRange(request.headers.range, size)
      : { kind: 'whole' as const };
    void response.headers({ 'Accept-Ranges': 'bytes', ETag: etag, 'Cache-Control': 'private, no-transform' });
    if (range.kind === 'unsatisfiable') {
      void response
        .status(416)
        .header('Content-Range', `bytes */${size}`)
        .send(errorBody(416, `the range ${request.headers.range ?? ''} is outside the ${size}-byte package`));
      return;
    }
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, size - 1];
    if (range.kind === 'partial')
      void response.status(206).header('Content-Range', `bytes ${start}-${end}/${size}`);
    void response.headers({
      'Content-Type': 'application/gzip',
      'Content-Length': String(end - start + 1),
      'Content-Disposition': `attachment; filename="careen-agent-package-${content.package.version}.tar.gz"`,
    });
    // Once the headers are gone, a stream that fails is cut short of Content-Length: the
    // signal left to the client. A HEAD gets an empty stream, which keeps that Content-Length
    // (an empty payload would be answered with 0).
    void response.send(Readable.from(request.method === 'HEAD' ? [] : content.read(start, end)));
  }
}
