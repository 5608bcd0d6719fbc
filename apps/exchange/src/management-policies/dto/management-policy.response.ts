import { type Property } from '@careen/policy';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type AgentUpgradePolicy, type ManagementPolicyEntity } from '../management-policy.entity';

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
    };
  }
}

export class ManagementPolicyListResponse {
  @ApiProperty({ type: [ManagementPolicyResponse] }) items!: ManagementPolicyResponse[];
  @ApiProperty() total!: number;
}

export class AppliesToResponse {
  @ApiProperty({ description: 'whether the policy is enabled; a disabled one applies to nothing yet' })
  enabled!: boolean;
  @ApiProperty({ type: [String] }) items!: string[];
  @ApiProperty() total!: number;
}
