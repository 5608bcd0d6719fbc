/**
 * The gate's checks that depend only on the clock: freezes first, then windows
 * (docs/architecture.md, invariant 9). Pure: the agbot hands it the controls it mirrors and the
 * database's clock, inside the transaction that takes the slot.
 */
import { DateTime } from 'luxon';
import { type Freeze, type MaintenanceWindow } from './disruption-controls';
import { covers, type SelectedNode } from './disruption-selector';
import { WindowSchedule, type WindowState } from './window-schedule';

export type TimeRefusal =
  | { reason: 'freeze'; control: string; until: Date; message: string }
  | { reason: 'outside-window'; control: string; opensAt: Date | null; message: string };

export class TimeGate {
  private readonly schedules: { window: MaintenanceWindow; schedule: WindowSchedule }[];

  constructor(
    windows: readonly MaintenanceWindow[],
    private readonly freezes: readonly Freeze[],
  ) {
    this.schedules = windows.map((window) => ({ window, schedule: new WindowSchedule(window) }));
  }

  get empty(): boolean {
    return this.schedules.length === 0 && this.freezes.length === 0;
  }

  /** Why no disruption may start on `node` at `now`, or undefined when one may. */
  check(node: SelectedNode, now: Date): TimeRefusal | undefined {
    return this.frozen(node, now) ?? this.outsideWindows(node, now);
  }

  /** The windows that cover `node`, each with where `now` falls in it. */
  windowsCovering(node: SelectedNode, now: Date): { window: MaintenanceWindow; state: WindowState }[] {
    return this.schedules
      .filter(({ window }) => covers(window.selector, node))
      .map(({ window, schedule }) => ({ window, state: schedule.at(now) }));
  }

  /** The freezes that cover `node` and have not ended by `now`. */
  freezesCovering(node: SelectedNode, now: Date): Freeze[] {
    return this.freezes.filter((freeze) => covers(freeze.selector, node) && new Date(freeze.until) > now);
  }

  private frozen(node: SelectedNode, now: Date): TimeRefusal | undefined {
    const active = this.freezes
      .filter((freeze) => covers(freeze.selector, node))
      .map((freeze) => ({ freeze, from: new Date(freeze.from), until: new Date(freeze.until) }))
      .filter(({ from, until }) => from <= now && now < until)
      .sort((a, b) => b.until.getTime() - a.until.getTime());
    const [longest] = active;
    if (!longest) return undefined;
    return {
      reason: 'freeze',
      control: longest.freeze.name,
      until: longest.until,
      message: `freeze "${longest.freeze.name}" until ${longest.until.toISOString()} (${inHours(now, longest.until)})`,
    };
  }

  private outsideWindows(node: SelectedNode, now: Date): TimeRefusal | undefined {
    const covering = this.schedules.filter(({ window }) => covers(window.selector, node));
    if (covering.length === 0) return undefined;
    let soonest: { window: MaintenanceWindow; opensAt: Date | null } | undefined;
    for (const { window, schedule } of covering) {
      const state = schedule.at(now);
      if (state.open) return undefined;
      if (!soonest || (state.opensAt && (!soonest.opensAt || state.opensAt < soonest.opensAt)))
        soonest = { window, opensAt: state.opensAt };
    }
    const { window, opensAt } = soonest!;
    const names = covering.map(({ window: covered }) => `"${covered.name}"`).join(', ');
    return {
      reason: 'outside-window',
      control: window.name,
      opensAt,
      message: opensAt
        ? `outside window ${names} (opens ${DateTime.fromJSDate(opensAt, { zone: window.timeZone }).toFormat('ccc d LLL HH:mm')} ${window.timeZone}, ${inHours(now, opensAt)})`
        : `outside window ${names}, which does not open again within a year`,
    };
  }
}

/** `in 3 h`, `in 25 min`, `in 2 d 4 h`. */
export function inHours(now: Date, later: Date): string {
  const minutes = Math.max(0, Math.ceil((later.getTime() - now.getTime()) / 60_000));
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `in ${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `in ${Math.floor(hours / 24)} d ${hours % 24} h`;
}
