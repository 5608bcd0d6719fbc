import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One node checked. */
export class DeployCheckNodeResponse {
  @ApiProperty() node!: string;
  @ApiProperty({ type: String, nullable: true }) haGroup!: string | null;
  @ApiProperty({
    description: 'policies compatible both ways and a service version exists for its arch: meant to run it',
  })
  compatible!: boolean;
  @ApiProperty({
    description: 'compatible and accepting workloads now (not cordoned, not under maintenance)',
  })
  deployable!: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the version it would run; null when not compatible',
  })
  version!: string | null;
  @ApiProperty({ type: [String], description: 'why it is not deployable; empty when it is' })
  reasons!: string[];
}

/** One HA group touched by the check. */
export class DeployCheckGroupResponse {
  @ApiProperty() haGroup!: string;
  @ApiProperty({ type: [String] }) members!: string[];
  @ApiProperty({
    type: [String],
    description: 'members meant to run the service; the others are not counted (heterogeneous groups)',
  })
  compatibleMembers!: string[];
  @ApiProperty({ type: [String] }) deployableMembers!: string[];
  @ApiProperty({ description: 'at least one member would run the service' }) available!: boolean;
  @ApiProperty({
    description: 'at least two would, so an upgrade can roll through the group without stopping the service',
  })
  staysAvailableDuringUpgrade!: boolean;
  @ApiProperty() reason!: string;
}

/** The service checked: the policy's, or the one named. */
export class DeployCheckServiceResponse {
  @ApiProperty() org!: string;
  @ApiProperty() url!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'the version named, else the one every compatible node would run; null when they differ or none would',
  })
  version!: string | null;
}

export class DeployCheckSummaryResponse {
  @ApiProperty({ type: 'integer' }) nodes!: number;
  @ApiProperty({ type: 'integer' }) compatible!: number;
  @ApiProperty({ type: 'integer' }) deployable!: number;
}

/** POST /v1/orgs/{org}/deploycheck's answer. */
export class DeployCheckResponse {
  @ApiProperty() org!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null when a service was checked' })
  deploymentPolicy!: string | null;
  @ApiProperty({ type: DeployCheckServiceResponse }) service!: DeployCheckServiceResponse;
  @ApiProperty({
    description: 'every node checked can run it (and, with checkHA, every group checked stays available)',
  })
  compatible!: boolean;
  @ApiProperty({ type: DeployCheckSummaryResponse }) summary!: DeployCheckSummaryResponse;
  @ApiProperty({ type: [DeployCheckNodeResponse] }) nodes!: DeployCheckNodeResponse[];
  @ApiPropertyOptional({
    type: [DeployCheckGroupResponse],
    description: 'present with checkHA, or when a group was named',
  })
  haGroups?: DeployCheckGroupResponse[];
}
