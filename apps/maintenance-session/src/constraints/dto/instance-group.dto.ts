/**
 * `PUT /v1/instance_group/{group_id}`: Fenix's instance-group constraints, as its VNF managers
 * send them (snake_case, every field given).
 */
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

/** A group's or an instance's id: Fenix's are UUIDs, Careen's instances `<deployment policy>@<host>`. */
export const CONSTRAINT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
export const CONSTRAINT_ID_RULE =
  "1-128 letters, digits, '.', '_', '@', ':' or '-', starting with a letter or digit";
/** A day: longer waits and lead times are not maintenance constraints but a freeze. */
const MAX_SECONDS = 86_400;

export class InstanceGroupDto {
  @ApiPropertyOptional({ description: "the path's group id, as Fenix clients repeat it" })
  @IsOptional()
  @IsString()
  group_id?: string;

  @ApiProperty({ description: "the project (the deployment policies' project) whose instances these are" })
  @Matches(IDENTIFIER_PATTERN, { message: `project_id must be ${IDENTIFIER_RULE}` })
  project_id!: string;

  @ApiProperty({ example: 'vnf-ha-group' })
  @IsString()
  @MaxLength(255)
  group_name!: string;

  @ApiProperty({ description: 'no two of its instances may be placed on one host' })
  @IsBoolean()
  anti_affinity_group!: boolean;

  @ApiProperty({ minimum: 0, description: 'instances of the group one host may hold; 0: no limit' })
  @IsInt()
  @Min(0)
  @Max(10_000)
  max_instances_per_host!: number;

  @ApiProperty({ minimum: 1, description: 'instances of the group that may be impacted at once' })
  @IsInt()
  @Min(1)
  @Max(10_000)
  max_impacted_members!: number;

  @ApiProperty({
    minimum: 0,
    maximum: MAX_SECONDS,
    description: 'seconds the group needs after a disruption before the next',
  })
  @IsInt()
  @Min(0)
  @Max(MAX_SECONDS)
  recovery_time!: number;

  @ApiProperty({ description: 'Fenix: whether resources may be mitigated; kept and shown' })
  @IsBoolean()
  resource_mitigation!: boolean;
}

export const MIGRATION_TYPES = ['MIGRATE', 'LIVE_MIGRATE', 'OWN_ACTION', 'EVICTION', 'MIGRATION'] as const;

/** `PUT /v1/instance/{instance_id}`: Fenix's per-instance constraints. */
export class InstanceConstraintDto {
  @ApiPropertyOptional({ description: "the path's instance id, as Fenix clients repeat it" })
  @IsOptional()
  @IsString()
  instance_id?: string;

  @ApiProperty()
  @Matches(IDENTIFIER_PATTERN, { message: `project_id must be ${IDENTIFIER_RULE}` })
  project_id!: string;

  @ApiPropertyOptional({ description: 'the instance group it belongs to, declared first', nullable: true })
  @IsOptional()
  @Matches(CONSTRAINT_ID_PATTERN, { message: `group_id must be ${CONSTRAINT_ID_RULE}` })
  group_id?: string | null;

  @ApiProperty({ example: 'vnf-a-1' })
  @IsString()
  @MaxLength(255)
  instance_name!: string;

  @ApiProperty({ minimum: 0, maximum: MAX_SECONDS, description: 'seconds the instance may be down at most' })
  @IsInt()
  @Min(0)
  @Max(MAX_SECONDS)
  max_interruption_time!: number;

  @ApiProperty({
    enum: MIGRATION_TYPES,
    description: 'what the VNF manager will answer for it (Fenix spells MIGRATE also MIGRATION)',
  })
  @IsString()
  @Matches(new RegExp(`^(${MIGRATION_TYPES.join('|')})$`), {
    message: `migration_type must be one of ${MIGRATION_TYPES.join(', ')}`,
  })
  migration_type!: (typeof MIGRATION_TYPES)[number];

  @ApiProperty()
  @IsBoolean()
  resource_mitigation!: boolean;

  @ApiProperty({
    minimum: 0,
    maximum: MAX_SECONDS,
    description: 'seconds of notice it needs before PLANNED_MAINTENANCE',
  })
  @IsInt()
  @Min(0)
  @Max(MAX_SECONDS)
  lead_time!: number;
}
