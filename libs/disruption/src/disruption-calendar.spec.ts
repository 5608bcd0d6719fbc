import { disruptionCalendar } from './disruption-calendar';
import { type Freeze, type MaintenanceWindow } from './disruption-controls';

const weeknights: MaintenanceWindow = {
  org: 'acme',
  name: 'weeknights',
  selector: { labels: { site: 'ams' } },
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '01:00',
  durationMinutes: 240,
  cutoffMinutes: 30,
  timeZone: 'Europe/Amsterdam',
};
const freeze = (name: string, from: string, until: string): Freeze => ({
  org: 'acme',
  name,
  selector: {},
  from,
  until,
});

describe('disruptionCalendar', () => {
  it("lists a week's openings in wall-clock time of the window's zone, across the autumn change", () => {
    // Sunday 25 Oct 2026 Amsterdam goes from CEST (UTC+2) to CET (UTC+1).
    const from = new Date('2026-10-22T00:00:00Z');
    const until = new Date('2026-10-29T00:00:00Z');
    const calendar = disruptionCalendar([weeknights], [], from, until);
    expect(calendar.windows).toHaveLength(1);
    const [window] = calendar.windows;
    expect(window!.covers).toBe('site=ams');
    expect(window!.openings.map((opening) => opening.start.toISOString())).toEqual([
      '2026-10-21T23:00:00.000Z', // Thu 01:00 CEST, its end inside the span
      '2026-10-22T23:00:00.000Z', // Fri 01:00 CEST
      '2026-10-26T00:00:00.000Z', // Mon 01:00 CET
      '2026-10-27T00:00:00.000Z',
      '2026-10-28T00:00:00.000Z',
    ]);
    const [first] = window!.openings;
    expect(first!.lastStart.toISOString()).toBe('2026-10-22T02:30:00.000Z');
    expect(first!.end.toISOString()).toBe('2026-10-22T03:00:00.000Z');
  });

  it('keeps the freezes that overlap the span, and only those', () => {
    const calendar = disruptionCalendar(
      [],
      [
        freeze('year-end', '2026-12-20T00:00:00+01:00', '2027-01-03T00:00:00+01:00'),
        freeze('past', '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'),
        freeze('later', '2027-02-01T00:00:00Z', '2027-02-02T00:00:00Z'),
      ],
      new Date('2026-12-28T00:00:00Z'),
      new Date('2027-01-04T00:00:00Z'),
    );
    expect(calendar.freezes).toEqual([
      {
        name: 'year-end',
        covers: 'every node',
        from: new Date('2026-12-19T23:00:00Z'),
        until: new Date('2027-01-02T23:00:00Z'),
      },
    ]);
  });
});
