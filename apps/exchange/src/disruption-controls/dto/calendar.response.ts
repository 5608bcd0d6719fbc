import { type DisruptionCalendar } from '@careen/disruption';
import { ApiProperty } from '@nestjs/swagger';

export class CalendarOpeningResponse {
  @ApiProperty({ type: String, format: 'date-time' }) start!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'no new step starts after it (the cutoff)' })
  lastStart!: string;
  @ApiProperty({ type: String, format: 'date-time' }) end!: string;
}

export class CalendarWindowResponse {
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'what its selector covers, in words' }) covers!: string;
  @ApiProperty() timeZone!: string;
  @ApiProperty({ type: [CalendarOpeningResponse] }) openings!: CalendarOpeningResponse[];
}

export class CalendarFreezeResponse {
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'what its selector covers, in words' }) covers!: string;
  @ApiProperty({ type: String, format: 'date-time' }) from!: string;
  @ApiProperty({ type: String, format: 'date-time' }) until!: string;
}

/** The org's windows with their openings, and the freezes, over a span of days. */
export class CalendarResponse {
  @ApiProperty({ type: String, format: 'date-time' }) from!: string;
  @ApiProperty({ type: String, format: 'date-time' }) until!: string;
  @ApiProperty({ type: [CalendarWindowResponse] }) windows!: CalendarWindowResponse[];
  @ApiProperty({ type: [CalendarFreezeResponse] }) freezes!: CalendarFreezeResponse[];

  static from(calendar: DisruptionCalendar): CalendarResponse {
    return {
      from: calendar.from.toISOString(),
      until: calendar.until.toISOString(),
      windows: calendar.windows.map((window) => ({
        ...window,
        openings: window.openings.map((opening) => ({
          start: opening.start.toISOString(),
          lastStart: opening.lastStart.toISOString(),
          end: opening.end.toISOString(),
        })),
      })),
      freezes: calendar.freezes.map((freeze) => ({
        ...freeze,
        from: freeze.from.toISOString(),
        until: freeze.until.toISOString(),
      })),
    };
  }
}
