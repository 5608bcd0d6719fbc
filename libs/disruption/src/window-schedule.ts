/**
 * When a recurring maintenance window is open, after AWS Systems Manager's maintenance windows
 * and kured's reboot days: a recurrence (weekdays and a start time, or an RFC 5545 RRULE) of
 * wall-clock times in an IANA time zone, a duration, and a cutoff before the end after which no
 * new step starts. Work under way is not cut short when a window closes; that is the caller's.
 *
 * The recurrence is computed by rrule in floating time (wall-clock fields, no zone), and each
 * occurrence becomes an instant in the window's zone with luxon, so a window at 01:00
 * Europe/Amsterdam opens at 01:00 local on both sides of a DST change. A start that does not
 * exist on a spring-forward day moves forward by the gap (02:30 becomes 03:30); an ambiguous one
 * on a fall-back day is the later of the two (luxon's choice: 02:30 on the night Amsterdam leaves
 * summer time is 02:30 winter time). The duration is elapsed time.
 *
 * Each question computes the recurrence from an anchor just before it (the day, the Monday, the
 * first of the month or of the year, by the rule's frequency), never from a fixed origin, so its
 * cost does not grow with time; rules whose occurrences would depend on where that anchor falls
 * (INTERVAL above 1, COUNT) are refused, and so are rules dense enough to be costly.
 */
import { DateTime, IANAZone } from 'luxon';
import { type Frequency, type Options, RRule, type Weekday } from 'rrule';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type WeekdayName = (typeof WEEKDAYS)[number];

export interface WindowRecurrence {
  /** Weekdays with `start`, or an `rrule`: one of the two. */
  days?: WeekdayName[];
  /** `HH:MM`, wall-clock time in `timeZone`. */
  start?: string;
  /** An RFC 5545 RRULE of wall-clock times, without DTSTART: `FREQ=WEEKLY;BYDAY=TU;BYHOUR=1`. */
  rrule?: string;
  durationMinutes: number;
  /** IANA name, such as `Europe/Amsterdam`. */
  timeZone: string;
  /** No new step starts later than this many minutes before the window ends. */
  cutoffMinutes?: number;
}

/** Where an instant falls. `opensAt` is the next moment a step may start after the current one. */
export type WindowState =
  { open: true; since: Date; lastStart: Date; closesAt: Date } | { open: false; opensAt: Date | null };

/** One opening of a window: a step may start from `start` until `lastStart`; it ends at `end`. */
export interface WindowOpening {
  start: Date;
  lastStart: Date;
  end: Date;
}

const TIME = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;
const RRULE_WEEKDAYS = [RRule.MO, RRule.TU, RRule.WE, RRule.TH, RRule.FR, RRule.SA, RRule.SU];
/** How far ahead an opening is looked for. */
const HORIZON_DAYS = 400;
const MINUTE = 60_000;
const NUMERIC_PARTS = [
  'interval',
  'count',
  'bysetpos',
  'bymonth',
  'bymonthday',
  'byyearday',
  'byweekno',
  'byhour',
  'byminute',
  'bysecond',
] as const;
const COARSE_ENOUGH = [RRule.DAILY, RRule.WEEKLY, RRule.MONTHLY, RRule.YEARLY];

/** Why the recurrence is no window, or undefined when it is one. */
export function recurrenceProblem(window: WindowRecurrence): string | undefined {
  if (!IANAZone.isValidZone(window.timeZone)) return `timeZone "${window.timeZone}" is not an IANA time zone`;
  if (
    !Number.isInteger(window.durationMinutes) ||
    window.durationMinutes < 1 ||
    window.durationMinutes > 10_080
  )
    return 'durationMinutes must be a whole number from 1 to 10080 (a week)';
  const cutoff = window.cutoffMinutes ?? 0;
  if (!Number.isInteger(cutoff) || cutoff < 0 || cutoff >= window.durationMinutes)
    return 'cutoffMinutes must be a whole number from 0 to less than durationMinutes';
  const byDays = window.days !== undefined || window.start !== undefined;
  if (byDays === (window.rrule !== undefined)) return 'give either days and start, or rrule';
  if (byDays) {
    if (!Array.isArray(window.days) || window.days.length === 0) return 'days must name at least one weekday';
    const unknown = window.days.find((day) => !WEEKDAYS.includes(day));
    if (unknown !== undefined) return `days: "${unknown}" is not one of ${WEEKDAYS.join(', ')}`;
    if (!window.start || !TIME.test(window.start)) return 'start must be a wall-clock time HH:MM';
    return undefined;
  }
  try {
    optionsOf(window);
    return undefined;
  } catch (error) {
    return `rrule: ${(error as Error).message}`;
  }
}

export class WindowSchedule {
  private readonly options: Partial<Options>;
  private readonly durationMs: number;
  private readonly cutoffMs: number;

  constructor(private readonly window: WindowRecurrence) {
    const problem = recurrenceProblem(window);
    if (problem) throw new Error(problem);
    this.options = optionsOf(window);
    this.durationMs = window.durationMinutes * MINUTE;
    this.cutoffMs = (window.cutoffMinutes ?? 0) * MINUTE;
  }

  /** Whether a new step may start at `now`, and until when; or when it next may. */
  at(now: Date): WindowState {
    const floatingNow = this.floating(now);
    // Occurrences that may still run at `now`, with a day's margin for a zone's offset changes.
    const from = new Date(floatingNow.getTime() - this.durationMs - 26 * 3_600_000);
    const recent = this.ruleFrom(from).between(from, new Date(floatingNow.getTime() + 26 * 3_600_000), true);
    for (const occurrence of recent) {
      const since = this.instant(occurrence);
      const closesAt = new Date(since.getTime() + this.durationMs);
      const lastStart = new Date(closesAt.getTime() - this.cutoffMs);
      if (since <= now && now < lastStart) return { open: true, since, lastStart, closesAt };
    }
    return { open: false, opensAt: this.nextOpening(now, recent) };
  }

  /**
   * The openings that overlap [`from`, `to`), oldest first: each from its start to its end, with
   * the last moment a step may start (`lastStart`, the cutoff before the end).
   */
  openings(from: Date, to: Date): WindowOpening[] {
    const margin = this.durationMs + 26 * 3_600_000;
    const floatingFrom = new Date(this.floating(from).getTime() - margin);
    const floatingTo = new Date(this.floating(to).getTime() + 26 * 3_600_000);
    return this.ruleFrom(floatingFrom)
      .between(floatingFrom, floatingTo, true)
      .map((occurrence) => {
        const start = this.instant(occurrence);
        const end = new Date(start.getTime() + this.durationMs);
        return { start, lastStart: new Date(end.getTime() - this.cutoffMs), end };
      })
      .filter(({ start, end }) => end > from && start < to);
  }

  private nextOpening(now: Date, recent: readonly Date[]): Date | null {
    const later = recent.map((occurrence) => this.instant(occurrence)).find((start) => start > now);
    if (later) return later;
    const end = new Date(this.floating(now).getTime() + HORIZON_DAYS * 86_400_000);
    let from = this.floating(now);
    const rule = this.ruleFrom(from);
    for (;;) {
      const next = rule.after(from, false);
      if (!next || next > end) return null;
      const start = this.instant(next);
      if (start > now) return start;
      from = next;
    }
  }

  /** The recurrence counted from its anchor at or before the floating date `from`. */
  private ruleFrom(from: Date): RRule {
    return new RRule({ ...this.options, dtstart: anchorBefore(this.options.freq!, from) });
  }

  /** The wall-clock time of `instant` in the window's zone, as a floating date. */
  private floating(instant: Date): Date {
    const local = DateTime.fromJSDate(instant, { zone: this.window.timeZone });
    return new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second));
  }

  /** The instant a floating occurrence's wall-clock time names in the window's zone. */
  private instant(floating: Date): Date {
    return DateTime.fromObject(
      {
        year: floating.getUTCFullYear(),
        month: floating.getUTCMonth() + 1,
        day: floating.getUTCDate(),
        hour: floating.getUTCHours(),
        minute: floating.getUTCMinutes(),
        second: floating.getUTCSeconds(),
      },
      { zone: this.window.timeZone },
    ).toJSDate();
  }
}

/** The rule's options, without a start: `ruleFrom` anchors it for each question. */
function optionsOf(window: WindowRecurrence): Partial<Options> {
  if (window.rrule !== undefined) {
    const text = window.rrule.replace(/^RRULE:/i, '');
    if (/DTSTART|TZID|UNTIL=[^;]*Z/i.test(text))
      throw new Error('give the rule in wall-clock times of timeZone: no DTSTART, TZID or UTC UNTIL');
    const options = RRule.parseString(text);
    if (options.freq === undefined) throw new Error('FREQ is missing');
    const notWhole = NUMERIC_PARTS.find((part) =>
      [options[part] ?? []].flat().some((value) => !Number.isInteger(value)),
    );
    if (notWhole) throw new Error(`${notWhole.toUpperCase()} must be whole numbers`);
    if (!COARSE_ENOUGH.includes(options.freq))
      throw new Error('a window recurs at most daily: FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY');
    if (options.count !== undefined && options.count !== null)
      throw new Error('COUNT is not taken: end a window with UNTIL (a wall-clock time), or remove it');
    if ((options.interval ?? 1) !== 1)
      throw new Error('INTERVAL is not taken: list the days (BYDAY, BYMONTHDAY) the window opens on instead');
    if ([options.byminute ?? []].flat().length > 4) throw new Error('BYMINUTE may list at most 4 minutes');
    if ([options.bysecond ?? []].flat().some((second) => second !== 0))
      throw new Error('BYSECOND may only be 0');
    return { ...options, tzid: null };
  }
  const [hour, minute] = window.start!.split(':').map(Number);
  return {
    freq: RRule.WEEKLY,
    byweekday: window.days!.map((day) => RRULE_WEEKDAYS[WEEKDAYS.indexOf(day)] as Weekday),
    byhour: hour,
    byminute: minute,
    bysecond: 0,
    tzid: null,
  };
}

/** The start of the day, week (Monday), month or year, by `freq`, at or before the floating `at`. */
function anchorBefore(freq: Frequency, at: Date): Date {
  const [year, month, day] = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()];
  switch (freq) {
    case RRule.YEARLY:
      return new Date(Date.UTC(year, 0, 1));
    case RRule.MONTHLY:
      return new Date(Date.UTC(year, month, 1));
    case RRule.WEEKLY:
      return new Date(Date.UTC(year, month, day - ((at.getUTCDay() + 6) % 7)));
    case RRule.DAILY:
    case RRule.HOURLY:
    case RRule.MINUTELY:
    case RRule.SECONDLY:
      // Only DAILY gets here: finer rules are refused.
      return new Date(Date.UTC(year, month, day));
  }
}
