import { ApiProperty } from '@nestjs/swagger';
import { type StoredPolicy } from '../../nodes/dto/policy.dto';
import {
  type DeploymentPolicyEntity,
  type DeploymentService,
  type Placement,
} from '../deployment-policy.entity';

export class DeploymentPolicyResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty() project!: string;
  @ApiProperty() service!: DeploymentService;
  @ApiProperty({ type: [Object] }) properties!: StoredPolicy['properties'];
  @ApiProperty({ type: [String] }) constraints!: string[];
  @ApiProperty() placement!: Placement;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;

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
  @ApiProperty() total!: number;
}
