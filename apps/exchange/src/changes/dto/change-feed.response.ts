import {
  CHANGE_OPERATIONS,
  CHANGE_RESOURCES,
  type ChangeOperation,
  type ChangeResource,
} from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ChangeResponse {
  @ApiProperty({ description: 'place in commit order' }) id!: number;
  @ApiProperty() org!: string;
  @ApiProperty({ enum: CHANGE_RESOURCES }) resource!: ChangeResource;
  @ApiProperty() resourceId!: string;
  @ApiProperty({ enum: CHANGE_OPERATIONS }) operation!: ChangeOperation;
  @ApiProperty() changedAt!: string;
  @ApiPropertyOptional({ description: 'the node the change is about made it itself' }) byNode?: boolean;
  @ApiPropertyOptional({
    description: 'what happened, where the operation alone does not say (a management policy paused, say)',
  })
  event?: string;
  @ApiPropertyOptional({ description: 'the resource after the change' }) data?: Record<string, unknown>;
}

export class ChangeFeedResponse {
  @ApiProperty({ type: [ChangeResponse] }) changes!: ChangeResponse[];
  @ApiProperty({ description: 'pass as `since` next time' }) lastId!: number;
}

export class ChangeHeadResponse {
  @ApiProperty({ description: 'the newest change id; pass as `since` to follow the feed from now' })
  lastId!: number;
}
