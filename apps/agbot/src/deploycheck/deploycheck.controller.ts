import { OrgScoped, NeedsRole, OnResource } from '@careen/auth';
import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { DeployCheckDto } from './deploycheck.dto';
import { DeployCheckService } from './deploycheck.service';
import { DeployCheckResponse } from './dto/deploycheck.response';
import { type DeployCheckResult } from './deploycheck.types';

/** Any user of the org may check where a policy or service would run; nodes may not. */
@ApiTags('deploycheck')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('policies')
@Controller('v1/orgs/:org/deploycheck')
export class DeployCheckController {
  constructor(private readonly deployCheck: DeployCheckService) {}

  @Post()
  @ApiOperation({ summary: 'Check, per node, whether a deployment policy or service may be placed' })
  @HttpCode(200)
  @ApiOkResponse({
    type: DeployCheckResponse,
    description: 'a verdict per node checked, and per HA group with checkHA',
  })
  @ApiBadRequestResponse({
    description:
      'a field does not validate (`details.fields` lists each with its problems), or both haGroup and node are given (INVALID_DEPLOY_CHECK)',
  })
  @ApiNotFoundResponse({
    description:
      'the deployment policy, service (or that version of it), node or HA group named is not known: DEPLOYMENT_POLICY_NOT_FOUND, SERVICE_NOT_FOUND, NODE_NOT_FOUND, HA_GROUP_NOT_FOUND',
  })
  @NeedsRole('viewer')
  check(@Param('org') org: string, @Body() body: DeployCheckDto): Promise<DeployCheckResult> {
    return this.deployCheck.check(org, body);
  }
}
