import { WindowSchedule, recurrenceProblem } from './window-schedule';

const at = (iso: string) => new Date(iso);

describe('WindowSchedule', () => {
  const weeknights = new WindowSchedule({
    days: ['mon', 'tue', 'wed', 'thu', 'fri'],
    start: '01:00',
    durationMinutes: 240,
    timeZone: 'Europe/Amsterdam',
    cutoffMinutes: 30,
  });

  it('is open from the start to the cutoff before the end, in the window’s own zone', () => {
    // Tuesday 1 Dec 2026: Amsterdam is UTC+1.
    expect(weeknights.at(at('2026-12-01T00:00:00Z'))).toEqual({
      open: true,
      since: at('2026-12-01T00:00:00Z'),
      lastStart: at('2026-12-01T03:30:00Z'),
      closesAt: at('2026-12-01T04:00:00Z'),
    });
    expect(weeknights.at(at('2026-11-30T23:59:59Z'))).toEqual({
      open: false,
      opensAt: at('2026-12-01T00:00:00Z'),
    });
    // Past the cutoff no new step starts; the next one may on Wednesday.
    expect(weeknights.at(at('2026-12-01T03:30:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-12-02T00:00:00Z'),
    });
  });

  it('waits over the weekend for Monday', () => {
    // Saturday noon; Monday 01:00 in Amsterdam is 00:00 UTC.
    expect(weeknights.at(at('2026-12-05T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-12-07T00:00:00Z'),
    });
  });

  it('opens at 01:00 local on both sides of the autumn DST change', () => {
    // Fri 23 Oct 2026 is still summer time (UTC+2); the clocks go back on Sun 25 Oct.
    expect(weeknights.at(at('2026-10-22T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-10-22T23:00:00Z'),
    });
    expect(weeknights.at(at('2026-10-23T00:00:00Z'))).toMatchObject({
      open: true,
      since: at('2026-10-22T23:00:00Z'),
    });
    expect(weeknights.at(at('2026-10-24T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-10-26T00:00:00Z'),
    });
  });

  it('moves a start that does not exist on the spring-forward day past the gap', () => {
    const sunday = new WindowSchedule({
      days: ['sun'],
      start: '02:30',
      durationMinutes: 60,
      timeZone: 'Europe/Amsterdam',
    });
    // 29 Mar 2026: 02:00 local becomes 03:00; 02:30 does not exist and is 03:30 CEST = 01:30 UTC.
    expect(sunday.at(at('2026-03-28T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-03-29T01:30:00Z'),
    });
    // A week later it is 02:30 CEST again.
    expect(sunday.at(at('2026-03-30T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-04-05T00:30:00Z'),
    });
  });

  it('takes an RRULE of wall-clock times, such as the first Sunday of each month', () => {
    const monthly = new WindowSchedule({
      rrule: 'RRULE:FREQ=MONTHLY;BYDAY=1SU;BYHOUR=3;BYMINUTE=0;BYSECOND=0',
      durationMinutes: 120,
      timeZone: 'America/New_York',
    });
    // 1 Nov 2026 is the first Sunday and the day New York leaves summer time at 02:00: 03:00 EST is 08:00 UTC.
    expect(monthly.at(at('2026-10-20T00:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-11-01T08:00:00Z'),
    });
    expect(monthly.at(at('2026-11-01T09:00:00Z'))).toMatchObject({
      open: true,
      closesAt: at('2026-11-01T10:00:00Z'),
    });
    expect(monthly.at(at('2026-11-01T10:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-12-06T08:00:00Z'),
    });
  });

  it('answers null for a window that does not open within the horizon', () => {
    const ended = new WindowSchedule({
      rrule: 'FREQ=YEARLY;UNTIL=20250101T000000;BYMONTH=1;BYMONTHDAY=1',
      durationMinutes: 60,
      timeZone: 'UTC',
    });
    expect(ended.at(at('2026-12-01T00:00:00Z'))).toEqual({ open: false, opensAt: null });
  });

  it('takes the later of the two 02:30s on the night the clocks go back', () => {
    const sunday = new WindowSchedule({
      days: ['sun'],
      start: '02:30',
      durationMinutes: 30,
      timeZone: 'Europe/Amsterdam',
    });
    // 25 Oct 2026: 03:00 summer time becomes 02:00 winter time; 02:30 winter time is 01:30 UTC.
    expect(sunday.at(at('2026-10-24T12:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-10-25T01:30:00Z'),
    });
  });

  it('counts a daily rule from the day asked about, whatever the year', () => {
    const daily = new WindowSchedule({
      rrule: 'FREQ=DAILY;BYHOUR=2,14;BYMINUTE=0,30',
      durationMinutes: 10,
      timeZone: 'UTC',
    });
    expect(daily.at(at('2099-06-15T14:35:00Z'))).toMatchObject({
      open: true,
      since: at('2099-06-15T14:30:00Z'),
    });
    expect(daily.at(at('2099-06-15T14:45:00Z'))).toEqual({
      open: false,
      opensAt: at('2099-06-16T02:00:00Z'),
    });
  });

  it.each([
    [
      { days: ['mon'], start: '01:00', durationMinutes: 60, timeZone: 'Mars/Olympus' },
      'not an IANA time zone',
    ],
    [{ days: ['mon'], start: '25:00', durationMinutes: 60, timeZone: 'UTC' }, 'start must be'],
    [{ days: ['moon'], start: '01:00', durationMinutes: 60, timeZone: 'UTC' }, '"moon" is not one of'],
    [{ days: [], start: '01:00', durationMinutes: 60, timeZone: 'UTC' }, 'at least one weekday'],
    [{ days: ['mon'], start: '01:00', durationMinutes: 0, timeZone: 'UTC' }, 'durationMinutes'],
    [
      { days: ['mon'], start: '01:00', durationMinutes: 60, cutoffMinutes: 60, timeZone: 'UTC' },
      'cutoffMinutes',
    ],
    [
      { days: ['mon'], start: '01:00', rrule: 'FREQ=DAILY', durationMinutes: 60, timeZone: 'UTC' },
      'either days and start, or rrule',
    ],
    [{ durationMinutes: 60, timeZone: 'UTC' }, 'either days and start, or rrule'],
    [{ rrule: 'FREQ=MINUTELY', durationMinutes: 60, timeZone: 'UTC' }, 'at most daily'],
    [{ rrule: 'BYHOUR=1', durationMinutes: 60, timeZone: 'UTC' }, 'FREQ is missing'],
    [{ rrule: 'FREQ=DAILY;WHEN=NOW', durationMinutes: 60, timeZone: 'UTC' }, 'rrule:'],
    [
      { rrule: 'FREQ=DAILY;BYHOUR=1,x', durationMinutes: 60, timeZone: 'UTC' },
      'BYHOUR must be whole numbers',
    ],
    [
      { rrule: 'DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY', durationMinutes: 60, timeZone: 'UTC' },
      'no DTSTART',
    ],
  ])('names what is wrong with %j', (window, problem) => {
    expect(recurrenceProblem(window as never)).toContain(problem);
  });
});
