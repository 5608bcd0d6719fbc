import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { MANAGEMENT_STATUSES, type ManagementStatusValue } from '@careen/contracts';
import { CompiledCheck, schema } from '@careen/contracts';

/** Each step of every agent's upgrade: its rules compiled once (see CompiledCheck). */
@CompiledCheck(
  schema.fieldsOnly(
    {
      status: { enum: MANAGEMENT_STATUSES },
      version: schema.nullable(schema.text(64)),
      fromVersion: schema.nullable(schema.text(64)),
      startTime: schema.nullable(schema.isoTime),
      endTime: schema.nullable(schema.isoTime),
      error: schema.nullable(schema.text(4000)),
    },
    ['status'],
  ),
)
export class ManagementStatusDto {
  @ApiProperty({ enum: MANAGEMENT_STATUSES })
  @IsIn(MANAGEMENT_STATUSES)
  status!: ManagementStatusValue;

  @ApiPropertyOptional({ example: '2.31.0', description: 'the agent version this status is about' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  version?: string;

  @ApiPropertyOptional({ example: '2.30.1', description: 'the version the node ran when this attempt began' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  fromVersion?: string;

  @ApiPropertyOptional({ example: '2026-12-01T02:03:04Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  startTime?: string;

  @ApiPropertyOptional({ example: '2026-12-01T02:05:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  endTime?: string;

  @ApiPropertyOptional({ maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  error?: string;
}
