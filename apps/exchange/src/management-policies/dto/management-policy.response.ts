import {
  MANAGEMENT_POLICY_STATES,
  managementPolicyState,
  UPGRADE_ACTIONS,
  type AgentUpgradePolicy,
  type ManagementPolicyState,
  type ResumeWindow,
} from '@careen/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { PropertyResponse } from '../../policy-validation/dto/property.response';
import { type ManagementPolicyEntity } from '../management-policy.entity';

export class ManagementPolicyResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String }) owner!: string | null;
  @ApiProperty() label!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: [String] }) constraints!: string[];
  @ApiProperty({ type: [PropertyResponse] }) properties!: PropertyResponse[];
  @ApiProperty({ type: [String] }) patterns!: string[];
  @ApiProperty({ type: [String] }) nodes!: string[];
  @ApiProperty() enabled!: boolean;
  /** Written out, not a reference: a nullable reference (`allOf`) would still refuse the null. */
  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: true,
    description: 'the agent upgrade, as stored with its defaults filled in; null when the policy has none',
    required: ['atLeastVersion', 'start', 'duration', 'action'],
    properties: {
      atLeastVersion: { type: 'string', example: '2.31.0', description: 'a semver, or `current`' },
      start: { type: 'string', example: '2026-12-01T02:00:00Z', description: 'RFC3339 UTC, or `now`' },
      duration: { type: 'integer', description: 'seconds over which agents spread their start' },
      action: { type: 'string', enum: [...UPGRADE_ACTIONS] },
      location: { type: 'string', description: 'where agents fetch the package instead of the exchange' },
      allowDowngrade: {
        type: 'boolean',
        description: 'present (true) when the version is exact: nodes running a higher one go down to it',
      },
    },
  })
  agentUpgradePolicy!: AgentUpgradePolicy | null;
  @ApiProperty({ type: 'integer', nullable: true }) failureThreshold!: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'why the exchange disabled it' })
  disabledReason!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) lastUpdated!: string;
  @ApiProperty({
    enum: MANAGEMENT_POLICY_STATES,
    description: 'disabled when not enabled, else paused while paused, else active',
  })
  state!: ManagementPolicyState;
  @ApiProperty({ description: 'nodes that have not started wait; nodes installing finish or roll back' })
  paused!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) pausedAt!: string | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: true,
    description:
      'set by the last resume: nodes that had not started pick a moment in [start, start + duration)',
    required: ['start', 'duration'],
    properties: {
      start: { type: 'string', format: 'date-time', example: '2026-12-01T02:10:00.000Z' },
      duration: { type: 'integer', description: 'seconds' },
    },
  })
  resumeWindow!: ResumeWindow | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
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
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class ResetResponse {
  @ApiProperty() nmp!: string;
  @ApiProperty({ type: [String], description: 'the nodes whose status was set to reset' }) nodes!: string[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class AppliesToResponse {
  @ApiProperty({ description: 'whether the policy is enabled; a disabled one applies to nothing yet' })
  enabled!: boolean;
  @ApiProperty({ type: [String] }) items!: string[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
