import { IdentifierPipe } from '@careen/service';
import {
  assertProject,
  CurrentPrincipal,
  OrgScoped,
  NeedsRole,
  OnResource,
  ProjectScoped,
  type Principal,
} from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { DeploymentPoliciesService } from './deployment-policies.service';
import { DeploymentPolicyListResponse, DeploymentPolicyResponse } from './dto/deployment-policy.response';
import { PutDeploymentPolicyDto } from './dto/put-deployment-policy.dto';

/** Org admins write deployment policies; members of the org read them. */
@ApiTags('deployment-policies')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('policies')
@Controller('v1/orgs/:org/deployment-policies')
export class DeploymentPoliciesController {
  constructor(private readonly policies: DeploymentPoliciesService) {}

  @Put(':name')
  // A key limited to projects (a VNF manager's) may scale its own projects' policies.
  @ProjectScoped()
  @ApiOperation({ summary: 'Publish (create or replace) a deployment policy' })
  @ApiCreatedResponse({ type: DeploymentPolicyResponse, description: 'created' })
  @ApiOkResponse({ type: DeploymentPolicyResponse, description: 'replaced' })
  @NeedsRole('orgAdmin')
  async put(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: PutDeploymentPolicyDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<DeploymentPolicyResponse> {
    const { created, policy } = await this.policies.put(org, name, body, (project) =>
      assertProject(actor, project),
    );
    void response.status(created ? 201 : 200);
    return policy;
  }

  @Get()
  @ApiOperation({ summary: "List the org's deployment policies" })
  @ApiOkResponse({ type: DeploymentPolicyListResponse })
  list(@Param('org') org: string): Promise<DeploymentPolicyListResponse> {
    return this.policies.list(org);
  }

  @Get(':name')
  @ApiOperation({ summary: 'Read a deployment policy' })
  @ApiOkResponse({ type: DeploymentPolicyResponse })
  get(@Param('org') org: string, @Param('name') name: string): Promise<DeploymentPolicyResponse> {
    return this.policies.get(org, name);
  }

  @Delete(':name')
  @ApiOperation({ summary: 'Remove a deployment policy' })
  @ApiNoContentResponse({ description: 'removed' })
  @NeedsRole('orgAdmin')
  @HttpCode(204)
  remove(@Param('org') org: string, @Param('name') name: string): Promise<void> {
    return this.policies.remove(org, name);
  }
}
