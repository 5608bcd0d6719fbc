import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `GET /v1/orgs/{org}/audit`: one page of the org's trail, oldest or newest first, filtered. */
export class AuditQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'records at or after this instant' })
  @IsOptional()
  @IsISO8601({ strict: true })
  since?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'records before this instant' })
  @IsOptional()
  @IsISO8601({ strict: true })
  until?: string;

  @ApiPropertyOptional({ description: 'who acted, e.g. `acme/ada`, `acme/sa:ci`, `careen:agbot`' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({ description: 'what was acted on, e.g. `managementPolicy/web`, `rollout/<id>`' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  target?: string;

  @ApiPropertyOptional({ description: 'what was done, e.g. `managementPolicy.paused`' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  action?: string;

  @ApiPropertyOptional({
    enum: ['oldest', 'newest'],
    default: 'oldest',
    description: 'the order of the records',
  })
  @IsOptional()
  @IsIn(['oldest', 'newest'])
  order?: 'oldest' | 'newest';

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: 'the `next` of the previous page: the records after it in the order asked for',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  after?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}
