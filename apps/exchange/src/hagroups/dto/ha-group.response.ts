import { ApiProperty } from '@nestjs/swagger';
import { type HaGroupEntity } from '../ha-group.entity';

export class HaGroupResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: [String] }) members!: string[];
  @ApiProperty() updated!: string;

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
  @ApiProperty() total!: number;
}
