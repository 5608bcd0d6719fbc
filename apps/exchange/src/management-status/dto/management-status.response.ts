import { ApiProperty } from '@nestjs/swagger';
import { type ManagementStatusEntity } from '../management-status.entity';

export class ManagementStatusResponse {
  @ApiProperty() org!: string;
  @ApiProperty() node!: string;
  @ApiProperty() nmp!: string;
  @ApiProperty() status!: string;
  @ApiProperty({ nullable: true, type: String }) version!: string | null;
  @ApiProperty({ nullable: true, type: String }) startTime!: string | null;
  @ApiProperty({ nullable: true, type: String }) endTime!: string | null;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
  @ApiProperty() updated!: string;

  static from(status: ManagementStatusEntity): ManagementStatusResponse {
    return {
      org: status.org,
      node: status.node,
      nmp: status.nmp,
      status: status.status,
      version: status.version,
      startTime: status.startTime?.toISOString() ?? null,
      endTime: status.endTime?.toISOString() ?? null,
      error: status.error,
      updated: status.updatedAt.toISOString(),
    };
  }
}

export class StatusRollupResponse {
  @ApiProperty() nmp!: string;
  @ApiProperty({ description: 'nodes by status', example: { successful: 12, 'ha-waiting': 3 } })
  counts!: Record<string, number>;
  @ApiProperty({ description: 'nodes that have reported' }) total!: number;
  @ApiProperty({ description: 'nodes counted as failed towards failureThreshold' }) failed!: number;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ nullable: true, type: String }) disabledReason!: string | null;
}
