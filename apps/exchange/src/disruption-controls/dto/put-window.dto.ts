import { WEEKDAYS, type WeekdayName, recurrenceProblem } from '@careen/disruption';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { DisruptionControlDto, IsValidBy } from './disruption-control.dto';

/**
 * `PUT …/windows/{name}`: a recurring maintenance window. Weekdays and a start, or an RRULE of
 * wall-clock times; a duration; an IANA time zone; a cutoff before the end.
 */
export class PutWindowDto extends DisruptionControlDto {
  @ApiPropertyOptional({ enum: WEEKDAYS, isArray: true, example: ['mon', 'tue', 'wed', 'thu', 'fri'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(7)
  @IsIn(WEEKDAYS, { each: true })
  days?: WeekdayName[];

  @ApiPropertyOptional({ example: '01:00', description: 'HH:MM, wall-clock time in timeZone; with days' })
  @IsOptional()
  @IsString()
  @MaxLength(5)
  start?: string;

  @ApiPropertyOptional({
    example: 'FREQ=MONTHLY;BYDAY=1SU;BYHOUR=3;BYMINUTE=0',
    description:
      'an RFC 5545 RRULE of wall-clock times in timeZone (DAILY or coarser, no DTSTART); instead of days and start',
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  rrule?: string;

  @ApiProperty({ example: 240, minimum: 1, maximum: 10_080 })
  @IsInt()
  @Min(1)
  durationMinutes!: number;

  @ApiPropertyOptional({
    example: 30,
    minimum: 0,
    description: 'no new step starts later than this before the end; default 0',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  cutoffMinutes?: number;

  @ApiProperty({ example: 'Europe/Amsterdam', description: 'IANA time zone of the wall-clock times' })
  @IsString()
  @MaxLength(64)
  @IsValidBy('isRecurrence', recurrenceProblem)
  timeZone!: string;
}
