import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type DesiredWorkload, type NodeEntity, type NodeStatus } from '../node.entity';
import { type StoredPolicy } from './policy.dto';

/** A node as clients see it: never its token or token hash. */
export class NodeResponse {
  @ApiProperty() org!: string;
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String, description: 'org/username of the registrant' })
  owner!: string | null;
  @ApiProperty({ nullable: true, type: String }) pattern!: string | null;
  @ApiProperty() policy!: StoredPolicy;
  @ApiProperty() labels!: Record<string, string>;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ nullable: true, type: String }) rack!: string | null;
  @ApiProperty({ nullable: true, type: String }) haGroup!: string | null;
  @ApiProperty() schedulable!: boolean;
  @ApiProperty({ nullable: true, type: Object }) maintenance!: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: Object, description: 'what the node last reported' })
  status!: NodeStatus | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;

  static from(node: NodeEntity): NodeResponse {
    return {
      org: node.org,
      id: node.id,
      name: node.name,
      owner: node.owner,
      pattern: node.pattern,
      policy: node.policy,
      labels: node.labels,
      tags: node.tags,
      rack: node.rack,
      haGroup: node.haGroup,
      schedulable: node.schedulable,
      maintenance: node.maintenance,
      status: node.status,
      createdAt: node.createdAt.toISOString(),
      updatedAt: node.updatedAt.toISOString(),
    };
  }
}

export class NodeListResponse {
  @ApiProperty({ type: [NodeResponse] }) items!: NodeResponse[];
  @ApiProperty() total!: number;
}

export class RegisteredNodeResponse {
  @ApiProperty() id!: string;
  @ApiPropertyOptional({ description: 'present only at creation or when a new token was given' })
  token?: string;
}

export class NodeWorkloadsResponse {
  @ApiProperty({ type: [Object] }) items!: DesiredWorkload[];
  @ApiProperty() total!: number;
}
