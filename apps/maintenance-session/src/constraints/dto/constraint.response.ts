import { ApiProperty } from '@nestjs/swagger';
import { MIGRATION_TYPES } from './instance-group.dto';

class Declared {
  @ApiProperty()
  org!: string;

  @ApiProperty({ description: 'who declared it last: a user or a service account' })
  updated_by!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class InstanceGroupResponse extends Declared {
  @ApiProperty()
  group_id!: string;

  @ApiProperty()
  project_id!: string;

  @ApiProperty()
  group_name!: string;

  @ApiProperty()
  anti_affinity_group!: boolean;

  @ApiProperty()
  max_instances_per_host!: number;

  @ApiProperty()
  max_impacted_members!: number;

  @ApiProperty()
  recovery_time!: number;

  @ApiProperty()
  resource_mitigation!: boolean;
}

export class InstanceConstraintResponse extends Declared {
  @ApiProperty()
  instance_id!: string;

  @ApiProperty()
  project_id!: string;

  @ApiProperty({ type: String, nullable: true })
  group_id!: string | null;

  @ApiProperty()
  instance_name!: string;

  @ApiProperty()
  max_interruption_time!: number;

  @ApiProperty({ enum: MIGRATION_TYPES })
  migration_type!: string;

  @ApiProperty()
  resource_mitigation!: boolean;

  @ApiProperty()
  lead_time!: number;
}

export class InstanceGroupListResponse {
  @ApiProperty({ type: [InstanceGroupResponse] })
  items!: InstanceGroupResponse[];

  @ApiProperty()
  total!: number;
}

export class InstanceConstraintListResponse {
  @ApiProperty({ type: [InstanceConstraintResponse] })
  items!: InstanceConstraintResponse[];

  @ApiProperty()
  total!: number;
}
