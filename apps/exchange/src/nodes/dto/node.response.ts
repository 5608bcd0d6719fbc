import { isoTime, type SqlFields } from '@careen/persistence';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { PropertyResponse } from '../../policy-validation/dto/property.response';
import { type DesiredWorkload, type NodeEntity, type NodeStatus } from '../node.entity';
import { type StoredPolicy } from './policy.dto';

/** A policy as stored: both lists always present. */
export class NodePolicyResponse {
  @ApiProperty({ type: [PropertyResponse] }) properties!: PropertyResponse[];
  @ApiProperty({ type: [String] }) constraints!: string[];
}

export class NodeWorkloadServiceResponse {
  @ApiProperty() org!: string;
  @ApiProperty() url!: string;
  @ApiProperty() version!: string;
}

export class NodeActualWorkloadResponse {
  @ApiPropertyOptional() deploymentPolicy?: string;
  @ApiProperty({ type: NodeWorkloadServiceResponse }) service!: NodeWorkloadServiceResponse;
  @ApiPropertyOptional() state?: string;
}

export class NodeDesiredWorkloadResponse {
  @ApiProperty() deploymentPolicy!: string;
  @ApiProperty({ type: NodeWorkloadServiceResponse }) service!: NodeWorkloadServiceResponse;
}

/** A node as clients see it: never its token or token hash. */
@ApiExtraModels(NodeActualWorkloadResponse)
export class NodeResponse {
  @ApiProperty() org!: string;
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String, description: 'org/username of the registrant' })
  owner!: string | null;
  @ApiProperty({ nullable: true, type: String }) pattern!: string | null;
  @ApiProperty({ type: NodePolicyResponse }) policy!: StoredPolicy;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ nullable: true, type: String }) rack!: string | null;
  @ApiProperty({ nullable: true, type: String }) haGroup!: string | null;
  @ApiProperty() schedulable!: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'no route writes it yet: null',
  })
  maintenance!: Record<string, unknown> | null;
  /** Written out, not a reference: a nullable reference (`allOf`) would still refuse the null. */
  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: true,
    description: 'what the node last reported; null until it reports or polls',
    required: ['lastHeartbeat'],
    properties: {
      lastHeartbeat: {
        type: 'string',
        format: 'date-time',
        description: "the exchange's clock at the node's last report or poll of the change feed",
      },
      agentVersion: {
        type: 'object',
        description: 'the timestamps are ISO 8601 as the node sent them (a date alone passes too)',
        properties: {
          package: { type: 'string', description: 'the agent package version running' },
          failed: { type: 'string', nullable: true, description: 'a version whose install failed' },
          upgradeStart: { type: 'string', nullable: true },
          upgradeEnd: { type: 'string', nullable: true },
        },
      },
      workloads: {
        type: 'array',
        items: { $ref: getSchemaPath(NodeActualWorkloadResponse) },
        description: 'absent until the node first reports (a poll alone stamps only lastHeartbeat)',
      },
    },
  })
  status!: NodeStatus | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

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

  /**
   * The same answer as Postgres writes it from `row`, a row of nodes: the data of the change
   * that the statement writing the row records.
   */
  static sql(row: string): SqlFields<NodeResponse> {
    return {
      org: `${row}.org`,
      id: `${row}.id`,
      name: `${row}.name`,
      owner: `${row}.owner`,
      pattern: `${row}.pattern`,
      policy: `${row}.policy`,
      labels: `${row}.labels`,
      tags: `${row}.tags`,
      rack: `${row}.rack`,
      haGroup: `${row}.ha_group`,
      schedulable: `${row}.schedulable`,
      maintenance: `${row}.maintenance`,
      status: `${row}.status`,
      createdAt: isoTime(`${row}.created_at`),
      updatedAt: isoTime(`${row}.updated_at`),
    };
  }
}

export class NodeListResponse {
  @ApiProperty({ type: [NodeResponse] }) items!: NodeResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class RegisteredNodeResponse {
  @ApiProperty() id!: string;
  @ApiPropertyOptional({
    description: 'present only at creation or when a new token was given; shown this once',
  })
  token?: string;
}

export class NodeWorkloadsResponse {
  @ApiProperty({ type: [NodeDesiredWorkloadResponse] }) items!: DesiredWorkload[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
