import { CompiledCheck, schema } from '@careen/contracts';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Every agent's poll: its rules compiled once (see CompiledCheck). */
@CompiledCheck(
  schema.fieldsOnly({
    since: schema.wholeNumber(0),
    wait: schema.wholeNumber(0, 120),
    limit: schema.wholeNumber(1, 1000),
  }),
)
export class ChangeQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: 'the last change id seen; 0 for the start',
    default: 0,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  since = 0;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: 'seconds to wait for a change when none is there yet',
    default: 0,
    maximum: 120,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(120)
  wait = 0;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'most changes in one answer',
    default: 100,
    maximum: 1000,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit = 100;
}
