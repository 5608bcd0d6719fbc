import { AllowNodes, CurrentPrincipal, OrgScoped, NeedsRole, type Principal, OnResource } from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import { IdentifierPipe } from '@careen/service';
import {
  ApiBasicAuth,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { type FastifyReply } from 'fastify';
import { ManagementPolicyDto } from './dto/management-policy.dto';
import {
  AppliesToResponse,
  ManagementPolicyListResponse,
  ManagementPolicyResponse,
} from './dto/management-policy.response';
import { PolicyRemovedResponse } from './dto/policy-removed.response';
import { ResumeRolloutDto } from './dto/rollout-control.dto';
import { ManagementPoliciesService } from './management-policies.service';
import { RolloutControlService } from './rollout-control.service';

@ApiTags('management-policies')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('policies')
@Controller('v1/orgs/:org/management-policies')
export class ManagementPoliciesController {
  constructor(
    private readonly policies: ManagementPoliciesService,
    private readonly rollouts: RolloutControlService,
  ) {}

  /** Creates (201) or replaces (200) the policy. */
  @Put(':name')
  @NeedsRole('orgAdmin')
  @ApiOperation({ summary: 'Publish (create or replace) a node management policy' })
  @ApiCreatedResponse({ type: ManagementPolicyResponse, description: 'created' })
  @ApiOkResponse({ type: ManagementPolicyResponse, description: 'replaced' })
  @ApiBadRequestResponse({
    description:
      'a parameter or the body does not validate; or the policy is enabled and selects every node without "allowDisruptive": true (NMP_DISRUPTIVE_NEEDS_CONFIRMATION)',
  })
  async publish(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: ManagementPolicyDto,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<ManagementPolicyResponse> {
    const { created, policy } = await this.policies.publish(actor, org, name, body);
    void response.status(created ? 201 : 200);
    return policy;
  }

  /** Nodes may read their org's policies: an agent starting afresh reads them here, then follows the feed. */
  @Get()
  @AllowNodes()
  @ApiOperation({ summary: "List the org's node management policies" })
  @ApiOkResponse({ type: ManagementPolicyListResponse })
  list(@Param('org') org: string): Promise<ManagementPolicyListResponse> {
    return this.policies.list(org);
  }

  @Get(':name')
  @AllowNodes()
  @ApiOperation({ summary: 'Read a node management policy' })
  @ApiOkResponse({ type: ManagementPolicyResponse })
  get(@Param('org') org: string, @Param('name') name: string): Promise<ManagementPolicyResponse> {
    return this.policies.get(org, name);
  }

  @Delete(':name')
  @NeedsRole('orgAdmin')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Remove a node management policy and its nodes' live statuses (its history stays), saying which HA groups its failed members leave halted",
  })
  @ApiOkResponse({ type: PolicyRemovedResponse, description: 'removed' })
  remove(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name') name: string,
  ): Promise<PolicyRemovedResponse> {
    return this.policies.remove(actor, org, name);
  }

  @Get(':name/nodes')
  @ApiOperation({ summary: 'List the nodes the policy selects (it applies to them while enabled)' })
  @ApiOkResponse({ type: AppliesToResponse })
  appliesTo(@Param('org') org: string, @Param('name') name: string): Promise<AppliesToResponse> {
    return this.policies.appliesTo(org, name);
  }

  @Post(':name/pause')
  @ApiOkResponse({ type: ManagementPolicyResponse, description: 'the policy, paused' })
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({
    summary: 'Pause the rollout: nodes that have not started wait; nodes installing finish or roll back',
  })
  @ApiConflictResponse({ description: 'the policy is disabled: MANAGEMENT_POLICY_DISABLED' })
  pause(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
  ): Promise<ManagementPolicyResponse> {
    return this.rollouts.pause(actor, org, name);
  }

  @Post(':name/resume')
  @HttpCode(200)
  @NeedsRole('operator')
  @ApiOperation({
    summary:
      'Resume a paused rollout (or re-enable a disabled policy), spreading the nodes left over a window',
  })
  @ApiOkResponse({ type: ManagementPolicyResponse, description: 'the policy, active' })
  resume(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name', new IdentifierPipe('name')) name: string,
    @Body() body: ResumeRolloutDto,
  ): Promise<ManagementPolicyResponse> {
    return this.rollouts.resume(actor, org, name, body.window);
  }
}
