import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type GroupStatus } from '../../rollout/rollout.types';

/** Every GroupStatus, listed for the document; `satisfies` keeps it in step with the type. */
const GROUP_STATUSES = [
  'done',
  'upgrading',
  'halted',
  'blocked',
  'waiting-offline',
] as const satisfies readonly GroupStatus[];

/** One HA group of a rollout, as the planner last reported it. */
export class RolloutGroupResponse {
  @ApiProperty() group!: string;
  @ApiProperty({
    enum: GROUP_STATUSES,
    description:
      'done: every online member is on its target; upgrading: one member moves; halted: a member did not come up in time; blocked: the only member running the service would have to stop; waiting-offline: what is left to move is offline',
  })
  status!: GroupStatus;
  @ApiPropertyOptional({ description: 'upgrading or halted: the member moving, or the one that failed' })
  node?: string;
  @ApiPropertyOptional({ description: 'halted: why' })
  reason?: string;
  @ApiProperty({ type: 'integer', description: 'members meant to run the service (the only ones counted)' })
  members!: number;
  @ApiProperty({ type: 'integer', description: 'members running their target version' })
  upgraded!: number;
}

/** The nodes of a rollout outside any HA group. */
export class RolloutUngroupedResponse {
  @ApiProperty({ type: 'integer' }) members!: number;
  @ApiProperty({ type: 'integer' }) inFlight!: number;
  @ApiProperty({ type: 'integer' }) upgraded!: number;
  @ApiProperty({
    type: [String],
    description: 'nodes in flight past the deadline; they keep their slot so a bad version stops spreading',
  })
  overdue!: readonly string[];
}

/** A service rollout under way (or halted) for one deployment policy. */
export class RolloutResponse {
  @ApiProperty() deploymentPolicy!: string;
  @ApiProperty({ type: [RolloutGroupResponse] }) groups!: readonly RolloutGroupResponse[];
  @ApiProperty({ type: RolloutUngroupedResponse }) ungrouped!: RolloutUngroupedResponse;
  @ApiProperty({ type: String, format: 'date-time', description: 'when the leading agbot last planned it' })
  updatedAt!: string;
}

export class RolloutListResponse {
  @ApiProperty({ type: [RolloutResponse] }) items!: RolloutResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
