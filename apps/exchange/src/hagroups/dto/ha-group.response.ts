import { ApiProperty } from '@nestjs/swagger';
import { type HaGroupEntity } from '../ha-group.entity';

export class HaGroupResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'empty when none was given' }) description!: string;
  @ApiProperty({ type: [String], description: 'node ids, in id order' }) members!: string[];
  @ApiProperty({ type: String, format: 'date-time', description: 'when the group last changed' })
  updated!: string;

  static from(group: HaGroupEntity, members: string[]): HaGroupResponse {
    return {
      org: group.org,
      name: group.name,
      description: group.description,
      members,
      updated: group.updatedAt.toISOString(),
    };
  }
}

export class HaGroupListResponse {
  @ApiProperty({ type: [HaGroupResponse] }) items!: HaGroupResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
