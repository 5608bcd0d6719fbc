import { calendarLayout, type CalendarAnswer } from './calendar-layout';

const calendar: CalendarAnswer = {
  from: '2026-12-07T00:00:00.000Z',
  until: '2026-12-09T00:00:00.000Z',
  windows: [
    {
      name: 'weeknights',
      covers: 'site=ams',
      timeZone: 'Europe/Amsterdam',
      openings: [
        // Two days of span: 00:00–04:00 is 1/12 of it, its last half hour after the cutoff.
        {
          start: '2026-12-07T00:00:00.000Z',
          lastStart: '2026-12-07T03:30:00.000Z',
          end: '2026-12-07T04:00:00.000Z',
        },
        // One that began before the span: cut at its start.
        {
          start: '2026-12-08T22:00:00.000Z',
          lastStart: '2026-12-09T01:30:00.000Z',
          end: '2026-12-09T02:00:00.000Z',
        },
      ],
    },
  ],
  freezes: [
    {
      name: 'year-end',
      covers: 'every node',
      from: '2026-12-08T00:00:00.000Z',
      until: '2027-01-03T00:00:00.000Z',
    },
  ],
};

describe('calendarLayout', () => {
  it('places freezes first, then each opening with the part after its cutoff, in percent of the span', () => {
    const layout = calendarLayout(calendar, new Date('2026-12-07T12:00:00Z'));
    expect(layout.rows.map((row) => [row.kind, row.name])).toEqual([
      ['freeze', 'year-end'],
      ['window', 'weeknights'],
    ]);
    expect(layout.rows[0]!.bars).toEqual([
      { left: 50, width: 50, afterCutoff: 0, label: expect.stringContaining('frozen from 2026-12-08') },
    ]);
    const [first, last] = layout.rows[1]!.bars;
    expect(first).toMatchObject({ left: 0, afterCutoff: 12.5 });
    expect(first!.width).toBeCloseTo(100 / 12);
    // Cut at the span's end: it shows from 22:00 to 24:00 of the last day.
    expect(last!.left).toBeCloseTo((46 / 48) * 100);
    expect(last!.width).toBeCloseTo((2 / 48) * 100);
    expect(layout.now).toBe(25);
  });

  it('marks no now outside the span, and a day for each midnight within it', () => {
    const layout = calendarLayout(calendar, new Date('2026-12-10T00:00:00Z'));
    expect(layout.now).toBeUndefined();
    expect(layout.days.length).toBeGreaterThanOrEqual(2);
    for (const { left } of layout.days) expect(left).toBeGreaterThanOrEqual(0);
  });
});
