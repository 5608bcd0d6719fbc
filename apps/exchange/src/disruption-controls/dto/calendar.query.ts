import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, Matches, Max, Min } from 'class-validator';
import { WITH_OFFSET } from './put-freeze.dto';

/** `GET /v1/orgs/{org}/disruption-calendar` */
export class CalendarQuery {
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'where the calendar starts (an instant with its offset); now when left out',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 instant, such as 2026-12-07T00:00:00Z' })
  @Matches(WITH_OFFSET, { message: 'from must end with its offset, Z or ±hh:mm' })
  from?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 31, default: 7 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(31)
  days?: number;
}
