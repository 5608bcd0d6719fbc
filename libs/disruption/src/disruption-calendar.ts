/**
 * The calendar of an org's windows and freezes over a span of days, as an operator reads it
 * before planning (the console's Disruption page, `careen window calendar`): each window's
 * openings and each freeze that overlaps the span, with the selector each covers. Pure.
 */
import { type Freeze, type MaintenanceWindow } from './disruption-controls';
import { describeSelector } from './disruption-selector';
import { type WindowOpening, WindowSchedule } from './window-schedule';

export interface CalendarWindow {
  name: string;
  covers: string;
  timeZone: string;
  openings: WindowOpening[];
}

export interface CalendarFreeze {
  name: string;
  covers: string;
  from: Date;
  until: Date;
}

export interface DisruptionCalendar {
  from: Date;
  until: Date;
  windows: CalendarWindow[];
  freezes: CalendarFreeze[];
}

export function disruptionCalendar(
  windows: readonly MaintenanceWindow[],
  freezes: readonly Freeze[],
  from: Date,
  until: Date,
): DisruptionCalendar {
  return {
    from,
    until,
    windows: windows.map((window) => ({
      name: window.name,
      covers: describeSelector(window.selector),
      timeZone: window.timeZone,
      openings: new WindowSchedule(window).openings(from, until),
    })),
    freezes: freezes
      .map((freeze) => ({
        name: freeze.name,
        covers: describeSelector(freeze.selector),
        from: new Date(freeze.from),
        until: new Date(freeze.until),
      }))
      .filter((freeze) => freeze.until > from && freeze.from < until),
  };
}
