/**
 * How results are printed: `table` (aligned columns, no borders, for people) or `json` (the
 * exchange's answer as is, pretty, for scripts). Commands say what to show; this decides how.
 */
import Table from 'cli-table3';
import { type CliOutput } from '../cli-io';

export const OUTPUT_FORMATS = ['table', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};

const PLAIN_STYLE = { head: [], border: [], 'padding-left': 0, 'padding-right': 2 };

/** One cell: nothing for null/undefined, compact JSON for objects, control characters made visible. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/[\u0000-\u001f\u007f]/g, (char) => JSON.stringify(char).slice(1, -1));
}

function render(table: Table.Table): string {
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}

/** Rows under a header line, columns aligned. */
export function formatColumns<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  const table = new Table({
    head: columns.map((column) => column.header),
    chars: NO_BORDERS,
    style: PLAIN_STYLE,
  });
  for (const row of rows) table.push(columns.map((column) => cellText(column.value(row))));
  return render(table);
}

/** One object as `field  value` lines, in the object's own order. */
export function formatRecord(record: object): string {
  const table = new Table({ chars: NO_BORDERS, style: PLAIN_STYLE });
  for (const [field, value] of Object.entries(record)) table.push([field, cellText(value)]);
  return render(table);
}

export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export class Printer {
  constructor(
    private readonly out: CliOutput,
    readonly format: OutputFormat,
  ) {}

  /** One object the exchange answered. */
  record(value: object): void {
    this.out.write(this.format === 'json' ? formatJson(value) : formatRecord(value));
  }

  /** A `{items, total}` answer; `empty` is said in table mode when there are no items. */
  list<T>(answer: { items: T[]; total: number }, columns: readonly Column<T>[], empty: string): void {
    if (this.format === 'json') {
      this.out.write(formatJson(answer));
    } else if (answer.items.length === 0) {
      this.out.write(`${empty}\n`);
    } else {
      this.out.write(formatColumns(columns, answer.items));
    }
  }

  /** A sentence for people (e.g. "removed …"); scripts asking for json get only data. */
  note(text: string): void {
    if (this.format === 'table') this.out.write(`${text}\n`);
  }

  /** A result the CLI made itself (not an answer of the exchange), shown in either format. */
  result(value: object, sentence: string): void {
    this.out.write(this.format === 'json' ? formatJson(value) : `${sentence}\n`);
  }
}
