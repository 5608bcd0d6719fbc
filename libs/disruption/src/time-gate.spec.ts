import { DateTime } from 'luxon';
import { type Freeze, type MaintenanceWindow } from './disruption-controls';
import { type SelectedNode } from './disruption-selector';
import { TimeGate } from './time-gate';

const ZONES = ['Europe/Amsterdam', 'America/New_York', 'Australia/Sydney'] as const;
const nodeIn = (zone: string, index: number): SelectedNode => ({
  id: `${zone.split('/')[1]!.toLowerCase()}-${index}`,
  labels: { tz: zone },
  rack: null,
  haGroup: null,
});

/** Weeknights 01:00–05:00 local per zone, no new step in the last 30 minutes. */
const windows: MaintenanceWindow[] = ZONES.map((zone) => ({
  org: 'acme',
  name: `nights-${zone}`,
  selector: { labels: { tz: zone } },
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '01:00',
  durationMinutes: 240,
  cutoffMinutes: 30,
  timeZone: zone,
}));
const freeze: Freeze = {
  org: 'acme',
  name: 'release-day',
  selector: { labels: { tz: 'America/New_York' } },
  from: '2026-10-28T05:00:00Z',
  until: '2026-10-29T05:00:00Z',
};

/** The oracle, written without the recurrence library: a local weekday 01:00 ≤ t < 04:30. */
function insideItsWindow(zone: string, instant: Date): boolean {
  const local = DateTime.fromJSDate(instant, { zone });
  for (let back = 0; back <= 1; back++) {
    const day = local.minus({ days: back }).startOf('day');
    if (day.weekday > 5) continue;
    const start = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour: 1 }, { zone });
    const lastStart = start.plus({ minutes: 210 });
    if (start <= local && local < lastStart) return true;
  }
  return false;
}

describe('TimeGate', () => {
  it('over a simulated week with DST changes in three zones, starts every step inside its window and outside the freeze', () => {
    const gate = new TimeGate(windows, [freeze]);
    const nodes = ZONES.flatMap((zone) => [nodeIn(zone, 1), nodeIn(zone, 2)]);
    const zoneOf = (node: SelectedNode) => node.labels['tz']!;
    // Europe leaves summer time on 25 Oct, New York on 1 Nov; Sydney entered it on 4 Oct.
    const from = Date.parse('2026-10-23T00:00:00Z');
    const to = Date.parse('2026-11-03T00:00:00Z');
    const busyUntil = new Map<string, number>();
    const started: { node: SelectedNode; at: Date }[] = [];
    const refusals = new Set<string>();
    for (let t = from; t < to; t += 5 * 60_000) {
      const now = new Date(t);
      for (const node of nodes) {
        if ((busyUntil.get(node.id) ?? 0) > t) continue;
        const refusal = gate.check(node, now);
        if (refusal) {
          refusals.add(refusal.reason);
          continue;
        }
        started.push({ node, at: now });
        // Each step takes 40 minutes: one may still run when its window closes.
        busyUntil.set(node.id, t + 40 * 60_000);
      }
    }

    for (const { node, at } of started) {
      expect({ node: node.id, at, inside: insideItsWindow(zoneOf(node), at) }).toEqual({
        node: node.id,
        at,
        inside: true,
      });
      if (zoneOf(node) === 'America/New_York') {
        expect(at >= new Date(freeze.from) && at < new Date(freeze.until)).toBe(false);
      }
    }
    // Every weeknight of every zone saw steps but New York's Wednesday, which fell in the freeze.
    const nights = (zone: string) => [
      ...new Set(
        started
          .filter(({ node }) => zoneOf(node) === zone)
          .map(({ at }) => DateTime.fromJSDate(at, { zone }).toISODate()),
      ),
    ];
    expect(nights('Europe/Amsterdam')).toEqual([
      '2026-10-23',
      '2026-10-26',
      '2026-10-27',
      '2026-10-28',
      '2026-10-29',
      '2026-10-30',
      '2026-11-02',
    ]);
    // Friday 23 Oct had passed in Sydney before the simulation began.
    expect(nights('Australia/Sydney')).toEqual([
      '2026-10-26',
      '2026-10-27',
      '2026-10-28',
      '2026-10-29',
      '2026-10-30',
      '2026-11-02',
      '2026-11-03',
    ]);
    expect(nights('America/New_York')).toEqual([
      '2026-10-23',
      '2026-10-26',
      '2026-10-27',
      '2026-10-29',
      '2026-10-30',
      '2026-11-02',
    ]);
    // Monday after each DST change: the first step at 01:00 local.
    const firstOn = (zone: string, day: string) =>
      started.find(
        ({ node, at }) => zoneOf(node) === zone && DateTime.fromJSDate(at, { zone }).toISODate() === day,
      )?.at;
    expect(firstOn('Europe/Amsterdam', '2026-10-26')).toEqual(new Date('2026-10-26T00:00:00Z'));
    expect(firstOn('America/New_York', '2026-11-02')).toEqual(new Date('2026-11-02T06:00:00Z'));
    expect(refusals).toEqual(new Set(['outside-window', 'freeze']));
  });

  it('names the freeze and when it ends, before any window', () => {
    const gate = new TimeGate(windows, [freeze]);
    const refusal = gate.check(nodeIn('America/New_York', 1), new Date('2026-10-28T06:00:00Z'));
    expect(refusal).toEqual({
      reason: 'freeze',
      control: 'release-day',
      until: new Date(freeze.until),
      message: 'freeze "release-day" until 2026-10-29T05:00:00.000Z (in 23 h)',
    });
  });

  it('names the window and when it opens in its own zone', () => {
    const gate = new TimeGate(windows, []);
    const refusal = gate.check(nodeIn('Europe/Amsterdam', 1), new Date('2026-12-01T20:00:00Z'));
    expect(refusal).toEqual({
      reason: 'outside-window',
      control: 'nights-Europe/Amsterdam',
      opensAt: new Date('2026-12-02T00:00:00Z'),
      message: 'outside window "nights-Europe/Amsterdam" (opens Wed 2 Dec 01:00 Europe/Amsterdam, in 4 h)',
    });
  });

  it('lets a node no window covers go at any time, and one of two overlapping windows suffices', () => {
    const gate = new TimeGate(
      [
        ...windows,
        {
          ...windows[0]!,
          name: 'weekend',
          days: ['sat', 'sun'],
          start: '10:00',
          durationMinutes: 60,
          cutoffMinutes: 0,
        },
      ],
      [],
    );
    const saturday = new Date('2026-12-05T09:30:00Z');
    expect(gate.check({ id: 'elsewhere', labels: {}, rack: null, haGroup: null }, saturday)).toBeUndefined();
    expect(gate.check(nodeIn('Europe/Amsterdam', 1), saturday)).toBeUndefined();
    expect(gate.check(nodeIn('Europe/Amsterdam', 1), new Date('2026-12-05T11:00:00Z'))).toMatchObject({
      reason: 'outside-window',
      opensAt: new Date('2026-12-06T09:00:00Z'),
    });
  });
});
