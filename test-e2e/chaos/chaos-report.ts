/** The chaos run's table: faults by kind with their recovery times, the checks, the work done. */
import { type Check } from './chaos-checks';
import { type WorkItem } from './chaos-work';
import { FAULT_KINDS, type InjectedFault } from './fault-scheduler';
import { type ProgressLog, WORK_KINDS } from './progress-log';

export interface ChaosRunFigures {
  seed: number;
  faultSeconds: number;
  faults: readonly InjectedFault[];
  progress: ProgressLog;
  checks: readonly Check[];
  eventsLost: number;
  changesChecked: number;
  deadLetters: number;
  statuses: Record<string, Record<number, number>>;
  work: readonly WorkItem[];
}

/** Fault to the first progress of the work it affects, in ms; undefined when none came. */
function recoveryMs(fault: InjectedFault, progress: ProgressLog): number | undefined {
  const first = progress.firstAfter(fault.affects, fault.at);
  return first === undefined ? undefined : first - fault.at;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export function chaosReport(figures: ChaosRunFigures): string {
  const faultRows = FAULT_KINDS.map((kind) => {
    const ofKind = figures.faults.filter((fault) => fault.kind === kind);
    const times = ofKind
      .map((fault) => recoveryMs(fault, figures.progress))
      .filter((ms): ms is number => ms !== undefined)
      .sort((a, b) => a - b);
    return [
      kind,
      String(ofKind.length),
      times.length > 0 ? seconds(percentile(times, 0.5)) : '-',
      times.length > 0 ? seconds(percentile(times, 0.99)) : '-',
      String(ofKind.length - times.length),
    ];
  });
  const checkRows = figures.checks.map((check) => [check.name, String(check.violations.length)]);
  const workRows = WORK_KINDS.map((kind) => {
    const items = figures.work.filter((item) => item.kind === kind);
    const count = (outcome: WorkItem['outcome']) =>
      String(items.filter((item) => item.outcome === outcome).length);
    return [kind, count('completed'), count('failed'), count('open')];
  });
  const answers = Object.entries(figures.statuses).map(
    ([service, counts]) =>
      `${service} ${Object.entries(counts)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ')}`,
  );
  return [
    `chaos run: seed ${figures.seed}, ${figures.faultSeconds} s of faults (again: npm run chaos -- --seed ${figures.seed} --minutes ${(figures.faultSeconds / 60).toFixed(2)})`,
    '',
    table(['fault', 'injected', 'recovery p50', 'recovery p99', 'no progress after'], faultRows),
    '',
    table(
      ['check', 'violations'],
      [
        ...checkRows,
        [
          `events lost (of ${figures.changesChecked} exchange changes, and every outbox)`,
          String(figures.eventsLost),
        ],
      ],
    ),
    '',
    table(['work', 'completed', 'failed', 'under way'], workRows),
    '',
    `dead letters: ${figures.deadLetters}`,
    `HTTP answers by service: ${answers.join('; ')}`,
    '',
    'faults in order:',
    ...figures.faults.map((fault) => {
      const recovered = recoveryMs(fault, figures.progress);
      return `  ${fault.kind.padEnd(17)} ${fault.detail}; progress ${recovered === undefined ? 'never came' : `after ${seconds(recovered)}`}`;
    }),
  ].join('\n');
}
