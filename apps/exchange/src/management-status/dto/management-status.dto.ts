import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { MANAGEMENT_STATUSES, type ManagementStatusValue } from '@careen/contracts';
import { CompiledCheck } from '@careen/service';

const optionalText = (max: number) => ({ anyOf: [{ type: 'null' }, { type: 'string', maxChars: max }] });
const optionalTime = { anyOf: [{ type: 'null' }, { type: 'string', format: 'iso8601' }] };

/** Each step of every agent's upgrade: its rules compiled once (see CompiledCheck). */
@CompiledCheck({
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: {
    status: { enum: MANAGEMENT_STATUSES },
    version: optionalText(64),
    fromVersion: optionalText(64),
    startTime: optionalTime,
    endTime: optionalTime,
    error: optionalText(4000),
  },
})
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
