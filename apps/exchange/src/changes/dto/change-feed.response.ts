import {
  CHANGE_OPERATIONS,
  CHANGE_RESOURCES,
  type ChangeOperation,
  type ChangeResource,
} from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ChangeResponse {
  @ApiProperty({ type: 'integer', description: 'place in commit order' }) id!: number;
  @ApiProperty() org!: string;
  @ApiProperty({ enum: CHANGE_RESOURCES }) resource!: ChangeResource;
  @ApiProperty() resourceId!: string;
  @ApiProperty({ enum: CHANGE_OPERATIONS }) operation!: ChangeOperation;
  @ApiProperty({ type: String, format: 'date-time' }) changedAt!: string;
  @ApiPropertyOptional({ description: 'the node the change is about made it itself (only ever true)' })
  byNode?: boolean;
  @ApiPropertyOptional({
    description: 'what happened, where the operation alone does not say (a management policy paused, say)',
  })
  event?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'the resource after the change, as its own routes answer it',
  })
  data?: Record<string, unknown>;
}

export class ChangeFeedResponse {
  @ApiProperty({ type: [ChangeResponse] }) changes!: ChangeResponse[];
  @ApiProperty({ type: 'integer', description: 'pass as `since` next time' }) lastId!: number;
}

export class ChangeHeadResponse {
  @ApiProperty({
    type: 'integer',
    description: 'the newest change id; pass as `since` to follow the feed from now',
  })
  lastId!: number;
}
