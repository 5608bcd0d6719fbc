import { OrgScoped } from '@careen/auth';
import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DeployCheckDto } from './deploycheck.dto';
import { DeployCheckService } from './deploycheck.service';
import { type DeployCheckResult } from './deploycheck.types';

/** Any user of the org may check where a policy or service would run; nodes may not. */
@ApiTags('deploycheck')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@Controller('v1/orgs/:org/deploycheck')
export class DeployCheckController {
  constructor(private readonly deployCheck: DeployCheckService) {}

  @Post()
  @ApiOperation({ summary: 'Check, per node, whether a deployment policy or service may be placed' })
  @HttpCode(200)
  check(@Param('org') org: string, @Body() body: DeployCheckDto): Promise<DeployCheckResult> {
    return this.deployCheck.check(org, body);
  }
}
