/**
 * The Disruption page's calendar as rows of bars: one row per maintenance window (its openings,
 * each with the part after its cutoff, when no new step starts) and per freeze, laid out over the
 * span the exchange answered for, in percent of it, with the days of that span for the header.
 */
export interface CalendarAnswer {
  from: string;
  until: string;
  windows: {
    name: string;
    covers: string;
    timeZone: string;
    openings: { start: string; lastStart: string; end: string }[];
  }[];
  freezes: { name: string; covers: string; from: string; until: string }[];
}

export interface CalendarBar {
  /** Where it starts and how wide it is, in percent of the span. */
  left: number;
  width: number;
  /** For an opening: how much of its width lies after its cutoff, in percent of its width. */
  afterCutoff: number;
  /** What it is, in words, for its tooltip and screen readers. */
  label: string;
}

export interface CalendarRow {
  kind: 'window' | 'freeze';
  name: string;
  covers: string;
  timeZone?: string;
  bars: CalendarBar[];
}

export interface CalendarLayout {
  rows: CalendarRow[];
  /** Each day's start within the span, in percent, with its date. */
  days: { left: number; day: Date }[];
  /** Where now is, in percent; undefined when outside the span. */
  now: number | undefined;
}

export function calendarLayout(calendar: CalendarAnswer, now: Date): CalendarLayout {
  const from = Date.parse(calendar.from);
  const span = Date.parse(calendar.until) - from;
  const at = (instant: number) => Math.min(100, Math.max(0, ((instant - from) / span) * 100));
  const bar = (start: string, end: string, lastStart: string | undefined, label: string): CalendarBar => {
    const [startMs, endMs] = [Date.parse(start), Date.parse(end)];
    const left = at(startMs);
    const width = at(endMs) - left;
    const cut = lastStart === undefined ? endMs : Math.min(endMs, Math.max(startMs, Date.parse(lastStart)));
    const afterCutoff = endMs > startMs ? ((endMs - cut) / (endMs - startMs)) * 100 : 0;
    return { left, width, afterCutoff, label };
  };
  const rows: CalendarRow[] = [
    ...calendar.freezes.map((freeze) => ({
      kind: 'freeze' as const,
      name: freeze.name,
      covers: freeze.covers,
      bars: [bar(freeze.from, freeze.until, undefined, `frozen from ${freeze.from} until ${freeze.until}`)],
    })),
    ...calendar.windows.map((window) => ({
      kind: 'window' as const,
      name: window.name,
      covers: window.covers,
      timeZone: window.timeZone,
      bars: window.openings.map((opening) =>
        bar(
          opening.start,
          opening.end,
          opening.lastStart,
          `open from ${opening.start}, no new step after ${opening.lastStart}, until ${opening.end}`,
        ),
      ),
    })),
  ];
  const days: CalendarLayout['days'] = [];
  const first = new Date(from);
  first.setHours(0, 0, 0, 0);
  for (let day = first; day.getTime() < from + span; day = nextDay(day))
    if (day.getTime() >= from) days.push({ left: at(day.getTime()), day });
  const nowAt = now.getTime();
  return { rows, days, now: nowAt >= from && nowAt <= from + span ? at(nowAt) : undefined };
}

function nextDay(day: Date): Date {
  const next = new Date(day);
  next.setDate(next.getDate() + 1);
  next.setHours(0, 0, 0, 0);
  return next;
}
