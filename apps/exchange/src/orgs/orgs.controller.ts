import { CurrentPrincipal, OrgScoped, NeedsRole, type Principal } from '@careen/auth';
import { listAnswer } from '@careen/service';
import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CreateOrgDto } from './dto/create-org.dto';
import { OrgListResponse, OrgResponse } from './dto/org.response';
import { OrgsService } from './orgs.service';

@ApiTags('orgs')
@ApiBearerAuth()
@ApiBasicAuth()
@Controller('v1/orgs')
export class OrgsController {
  constructor(private readonly orgs: OrgsService) {}

  @Post()
  @ApiOperation({ summary: 'Create an org' })
  @ApiCreatedResponse({ type: OrgResponse })
  @ApiConflictResponse({ description: 'an org with that id exists: ORG_EXISTS' })
  @NeedsRole('hubAdmin')
  create(@Body() body: CreateOrgDto): Promise<OrgResponse> {
    return this.orgs.create(body);
  }

  /**
   * Every org for a hub admin (what a hub-level reader such as the agbot walks for a full
   * resync); a user of an org sees only that one.
   */
  @Get()
  @ApiOperation({ summary: 'List the orgs the caller may see' })
  @ApiOkResponse({ type: OrgListResponse })
  async list(@CurrentPrincipal() actor: Principal): Promise<OrgListResponse> {
    return listAnswer(await this.orgs.list(actor));
  }

  @Get(':org')
  @ApiOperation({ summary: 'Read an org' })
  @ApiOkResponse({ type: OrgResponse })
  @OrgScoped()
  get(@Param('org') org: string): Promise<OrgResponse> {
    return this.orgs.get(org);
  }
}
