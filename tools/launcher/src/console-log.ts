/**
 * Turns a service's JSON log line into a short console line, only for warnings and errors:
 * the full logs stay in the log folder.
 */
const PINO_LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
const SHOWN_LEVELS = new Set(['warn', 'error', 'fatal']);
const COLORS = { warn: '\x1b[33m', error: '\x1b[31m', fatal: '\x1b[31m', dim: '\x1b[2m', reset: '\x1b[0m' };

export type OutputStream = 'stdout' | 'stderr';

export function consoleLineFor(
  service: string,
  line: string,
  stream: OutputStream,
  color: boolean,
): string | undefined {
  const record = parseRecord(line);
  if (!record) {
    // Not JSON: a crash trace or a runtime warning. Worth seeing when it went to stderr.
    return stream === 'stderr' && line.trim() !== '' ? format(service, 'error', line, color) : undefined;
  }
  const level = levelName(record.level);
  if (!level || !SHOWN_LEVELS.has(level)) return undefined;
  return format(service, level, messageOf(record), color);
}

export function useColor(): boolean {
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
}

function format(service: string, level: string, message: string, color: boolean): string {
  const label = level.toUpperCase().padEnd(5);
  if (!color) return `${service} ${label} ${message}`;
  const tint = level in COLORS ? COLORS[level as keyof typeof COLORS] : '';
  return `${COLORS.dim}${service}${COLORS.reset} ${tint}${label}${COLORS.reset} ${message}`;
}

function parseRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function levelName(level: unknown): string | undefined {
  if (typeof level === 'number') return PINO_LEVELS[level];
  return typeof level === 'string' ? level.toLowerCase() : undefined;
}

function messageOf(record: Record<string, unknown>): string {
  const message =
    typeof record.msg === 'string' ? record.msg : typeof record.message === 'string' ? record.message : '';
  const error = errorText(record.err ?? record.error);
  return error && !message.includes(error) ? `${message}: ${error}` : message;
}

function errorText(error: unknown): string | undefined {
  if (typeof error === 'string') return error;
  if (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string'
  ) {
    return (error as { message: string }).message;
  }
  return undefined;
}
