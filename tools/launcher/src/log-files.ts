/** The launcher's log files: one per process, the previous run's kept as `<file>.1`. */
import { closeSync, existsSync, openSync, readSync, renameSync, statSync } from 'node:fs';

const TAIL_BYTES = 16 * 1024;
const LINE_CHARS = 1_000;

/** The last lines of a log file, indented for quoting under a message. */
export function logTail(file: string, lines = 20): string {
  if (!existsSync(file)) return `    (no log at ${file})`;
  const size = statSync(file).size;
  const length = Math.min(size, TAIL_BYTES);
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  const tail = buffer
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-lines);
  const shown = tail.map(
    (line) => `    ${line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line}`,
  );
  return shown.length > 0 ? shown.join('\n') : '    (the log is empty)';
}

/** Keeps the previous run's log, so a crash can still be read after a restart. */
export function rotateLog(file: string): void {
  if (existsSync(file)) renameSync(file, `${file}.1`);
}
