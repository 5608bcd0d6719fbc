import { IdentifierPipe } from '@careen/service';
import { AllowNodes, OrgScoped, NeedsRole, OnResource } from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { ListServicesQuery } from './dto/list-services.query';
import { PutServiceDto } from './dto/put-service.dto';
import { ServiceListResponse, ServiceResponse } from './dto/service.response';
import { ServicesService } from './services.service';

/** Org admins write services; members read them, and so do the org's nodes, which run them. */
@ApiTags('services')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('services')
@Controller('v1/orgs/:org/services')
export class ServicesController {
  constructor(private readonly services: ServicesService) {}

  @Put(':id')
  @ApiOperation({ summary: 'Publish (create or replace) a service' })
  @ApiCreatedResponse({ type: ServiceResponse, description: 'created' })
  @ApiOkResponse({ type: ServiceResponse, description: 'replaced' })
  @ApiConflictResponse({
    description: 'another service of the org has the same url, version and arch: SERVICE_VERSION_EXISTS',
  })
  @NeedsRole('orgAdmin')
  async put(
    @Param('org') org: string,
    @Param('id', new IdentifierPipe('id')) id: string,
    @Body() body: PutServiceDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<ServiceResponse> {
    const { created, service } = await this.services.put(org, id, body);
    void response.status(created ? 201 : 200);
    return service;
  }

  @Get()
  @ApiOperation({ summary: "List the org's services" })
  @ApiOkResponse({ type: ServiceListResponse })
  @AllowNodes()
  list(@Param('org') org: string, @Query() query: ListServicesQuery): Promise<ServiceListResponse> {
    return this.services.list(org, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a service' })
  @ApiOkResponse({ type: ServiceResponse })
  @AllowNodes()
  get(@Param('org') org: string, @Param('id') id: string): Promise<ServiceResponse> {
    return this.services.get(org, id);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Remove a service' })
  @ApiNoContentResponse({ description: 'removed' })
  @NeedsRole('orgAdmin')
  @HttpCode(204)
  remove(@Param('org') org: string, @Param('id') id: string): Promise<void> {
    return this.services.remove(org, id);
  }
}
