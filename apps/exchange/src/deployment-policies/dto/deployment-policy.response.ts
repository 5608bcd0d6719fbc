import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PropertyResponse } from '../../policy-validation/dto/property.response';
import { type DeploymentPolicyEntity } from '../deployment-policy.entity';
import { MAX_REPLICAS, PLACEMENT_MODES, type PlacementMode } from './put-deployment-policy.dto';

export class DeploymentServiceResponse {
  @ApiProperty({ example: 'acme', description: 'the org that publishes the service' }) org!: string;
  @ApiProperty({ example: 'acme.gateway' }) url!: string;
  @ApiProperty({ example: '>=1.2.0 <2.0.0' }) versionRange!: string;
}

export class PlacementResponse {
  @ApiProperty({ enum: PLACEMENT_MODES }) mode!: PlacementMode;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_REPLICAS,
    description: 'present when mode is replicas',
  })
  replicas?: number;
}

export class DeploymentPolicyResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty() project!: string;
  @ApiProperty({ type: DeploymentServiceResponse }) service!: DeploymentServiceResponse;
  @ApiProperty({ type: [PropertyResponse] }) properties!: PropertyResponse[];
  @ApiProperty({ type: [String] }) constraints!: string[];
  @ApiProperty({ type: PlacementResponse }) placement!: PlacementResponse;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static from(policy: DeploymentPolicyEntity): DeploymentPolicyResponse {
    return {
      org: policy.org,
      name: policy.name,
      description: policy.description,
      project: policy.project,
      service: policy.service,
      properties: policy.properties,
      constraints: policy.constraints,
      placement: policy.placement,
      createdAt: policy.createdAt.toISOString(),
      updatedAt: policy.updatedAt.toISOString(),
    };
  }
}

export class DeploymentPolicyListResponse {
  @ApiProperty({ type: [DeploymentPolicyResponse] }) items!: DeploymentPolicyResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
