import { OrgScoped, Roles } from '@careen/auth';
import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CreateOrgDto } from './dto/create-org.dto';
import { OrgResponse } from './dto/org.response';
import { OrgsService } from './orgs.service';

@ApiTags('orgs')
@ApiBearerAuth()
@ApiBasicAuth()
@Controller('v1/orgs')
export class OrgsController {
  constructor(private readonly orgs: OrgsService) {}

  @Post()
  @Roles('hubAdmin')
  create(@Body() body: CreateOrgDto): Promise<OrgResponse> {
    return this.orgs.create(body);
  }

  @Get(':org')
  @OrgScoped()
  get(@Param('org') org: string): Promise<OrgResponse> {
    return this.orgs.get(org);
  }
}
