import {
  MANAGEMENT_POLICY_STATES,
  MANAGEMENT_STATUSES,
  type ManagementPolicyState,
  type ManagementStatusValue,
} from '@careen/contracts';
import { isoTime, type SqlFields } from '@careen/persistence';
import { ApiProperty } from '@nestjs/swagger';
import { type ManagementStatusEntity } from '../management-status.entity';

export class ManagementStatusResponse {
  @ApiProperty() org!: string;
  @ApiProperty() node!: string;
  @ApiProperty() nmp!: string;
  @ApiProperty({ enum: MANAGEMENT_STATUSES }) status!: ManagementStatusValue;
  @ApiProperty({ nullable: true, type: String }) version!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) startTime!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) endTime!: string | null;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
  @ApiProperty({ type: 'integer', description: "the node's attempt at the policy: 1, 2, …" })
  attempt!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'the version the node ran when the attempt began',
  })
  fromVersion!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) updated!: string;

  static from(status: ManagementStatusEntity): ManagementStatusResponse {
    return {
      org: status.org,
      node: status.node,
      nmp: status.nmp,
      status: status.status as ManagementStatusValue,
      version: status.version,
      startTime: status.startTime?.toISOString() ?? null,
      endTime: status.endTime?.toISOString() ?? null,
      error: status.error,
      attempt: status.attempt,
      fromVersion: status.fromVersion,
      updated: status.updatedAt.toISOString(),
    };
  }

  /**
   * The same answer as Postgres writes it from `row`, a row of management_statuses: the data
   * of the change that the statement writing the row records.
   */
  static sql(row: string): SqlFields<ManagementStatusResponse> {
    return {
      org: `${row}.org`,
      node: `${row}.node`,
      nmp: `${row}.nmp`,
      status: `${row}.status`,
      version: `${row}.version`,
      startTime: isoTime(`${row}.start_time`),
      endTime: isoTime(`${row}.end_time`),
      error: `${row}.error`,
      attempt: `${row}.attempt`,
      fromVersion: `${row}.from_version`,
      updated: isoTime(`${row}.updated_at`),
    };
  }
}

export class StatusRollupResponse {
  @ApiProperty() nmp!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'nodes by status',
    example: { successful: 12, 'ha-waiting': 3 },
  })
  counts!: Record<string, number>;
  @ApiProperty({ type: 'integer', description: 'nodes that have reported' }) total!: number;
  @ApiProperty({
    type: 'integer',
    description:
      'nodes counted as failed towards failureThreshold (only since failuresCountedSince, when set)',
  })
  failed!: number;
  @ApiProperty() enabled!: boolean;
  @ApiProperty() paused!: boolean;
  @ApiProperty({ enum: MANAGEMENT_POLICY_STATES }) state!: ManagementPolicyState;
  @ApiProperty({ nullable: true, type: String }) disabledReason!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'failures before this (when the policy was re-enabled) do not count',
  })
  failuresCountedSince!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'why no node can enact the enabled upgrade (its agent package is not published, or was removed); null when one can',
  })
  missingPackage!: string | null;
  @ApiProperty({
    type: [String],
    description:
      'the nodes it selects that have no status for it while its package is missing: counted as `no-package` in counts',
  })
  noPackage!: string[];
}

export class ManagementStatusPageResponse {
  @ApiProperty({ type: [ManagementStatusResponse] }) items!: ManagementStatusResponse[];
  @ApiProperty({ type: 'integer', description: 'nodes with a status for the policy' }) total!: number;
  @ApiProperty({ nullable: true, type: String, description: 'pass as `after` for the next page' })
  next!: string | null;
}
