import {
  MANAGEMENT_POLICY_STATES,
  managementPolicyState,
  type AgentUpgradePolicy,
  type ManagementPolicyState,
  type ResumeWindow,
} from '@careen/contracts';
import { type Property } from '@careen/policy';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type ManagementPolicyEntity } from '../management-policy.entity';

export class ResumeWindowResponse {
  @ApiProperty({ example: '2026-12-01T02:10:00.000Z' }) start!: string;
  @ApiProperty({ description: 'seconds' }) duration!: number;
}

export class ManagementPolicyResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String }) owner!: string | null;
  @ApiProperty() label!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: [String] }) constraints!: string[];
  @ApiProperty() properties!: Property[];
  @ApiProperty({ type: [String] }) patterns!: string[];
  @ApiProperty({ type: [String] }) nodes!: string[];
  @ApiProperty() enabled!: boolean;
  @ApiPropertyOptional({ nullable: true }) agentUpgradePolicy!: AgentUpgradePolicy | null;
  @ApiProperty({ nullable: true, type: Number }) failureThreshold!: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'why the exchange disabled it' })
  disabledReason!: string | null;
  @ApiProperty() lastUpdated!: string;
  @ApiProperty({
    enum: MANAGEMENT_POLICY_STATES,
    description: 'disabled when not enabled, else paused while paused, else active',
  })
  state!: ManagementPolicyState;
  @ApiProperty({ description: 'nodes that have not started wait; nodes installing finish or roll back' })
  paused!: boolean;
  @ApiProperty({ nullable: true, type: String }) pausedAt!: string | null;
  @ApiProperty({
    nullable: true,
    type: ResumeWindowResponse,
    description:
      'set by the last resume: nodes that had not started pick a moment in [start, start + duration)',
  })
  resumeWindow!: ResumeWindow | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'failures reported before this do not count towards failureThreshold (set when re-enabled)',
  })
  failuresCountedSince!: string | null;

  static from(nmp: ManagementPolicyEntity): ManagementPolicyResponse {
    return {
      org: nmp.org,
      name: nmp.name,
      owner: nmp.owner,
      label: nmp.label,
      description: nmp.description,
      constraints: nmp.constraints,
      properties: nmp.properties,
      patterns: nmp.patterns,
      nodes: nmp.nodes,
      enabled: nmp.enabled,
      agentUpgradePolicy: nmp.agentUpgradePolicy,
      failureThreshold: nmp.failureThreshold,
      disabledReason: nmp.disabledReason,
      lastUpdated: nmp.lastUpdated.toISOString(),
      state: managementPolicyState(nmp),
      paused: nmp.paused,
      pausedAt: nmp.pausedAt?.toISOString() ?? null,
      resumeWindow: nmp.resumeWindow,
      failuresCountedSince: nmp.failuresCountedSince?.toISOString() ?? null,
    };
  }
}

export class ManagementPolicyListResponse {
  @ApiProperty({ type: [ManagementPolicyResponse] }) items!: ManagementPolicyResponse[];
  @ApiProperty() total!: number;
}

export class ResetResponse {
  @ApiProperty() nmp!: string;
  @ApiProperty({ type: [String], description: 'the nodes whose status was set to reset' }) nodes!: string[];
  @ApiProperty() total!: number;
}

export class AppliesToResponse {
  @ApiProperty({ description: 'whether the policy is enabled; a disabled one applies to nothing yet' })
  enabled!: boolean;
  @ApiProperty({ type: [String] }) items!: string[];
  @ApiProperty() total!: number;
}
