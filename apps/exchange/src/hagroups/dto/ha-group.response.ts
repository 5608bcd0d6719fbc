import { type UnavailableLimit } from '@careen/disruption';
import { ApiProperty } from '@nestjs/swagger';
import { UNAVAILABLE_LIMIT_SCHEMA } from '../../disruption-controls/dto/disruption-selector.dto';
import { type HaGroupEntity } from '../ha-group.entity';

export class HaGroupResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'empty when none was given' }) description!: string;
  @ApiProperty({ type: [String], description: 'node ids, in id order' }) members!: string[];
  @ApiProperty({ ...UNAVAILABLE_LIMIT_SCHEMA, description: 'members disrupted at once; 1 unless set' })
  maxUnavailable!: UnavailableLimit;
  @ApiProperty({ type: String, format: 'date-time', description: 'when the group last changed' })
  updated!: string;

  static from(group: HaGroupEntity, members: string[]): HaGroupResponse {
    return {
      org: group.org,
      name: group.name,
      description: group.description,
      members,
      maxUnavailable: group.maxUnavailable ?? 1,
      updated: group.updatedAt.toISOString(),
    };
  }
}

export class HaGroupListResponse {
  @ApiProperty({ type: [HaGroupResponse] }) items!: HaGroupResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
