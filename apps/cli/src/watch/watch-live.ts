/**
 * The loop of a `watch` command: look, show, and stop when the thing watched is over. On a
 * terminal the screen is redrawn in place; elsewhere (a pipe, a file) each line that changed
 * since the last look is appended, never a whole snapshot again; with `-o json` only the last
 * view is printed. Ctrl-C stops watching with exit 130.
 */
import { CliError } from '../cli-errors';
import { type CliIo } from '../cli-io';
import { type OutputFormat } from '../output/output';

const CLEAR_SCREEN = '\u001b[H\u001b[2J';

/** The watched thing cannot go on until an operator acts (a halted HA group): distinct from a failure. */
export const EXIT_NEEDS_OPERATOR = 3;

export interface WatchedLook {
  screen: string;
  /**
   * What is printed when stdout is not a terminal: each line not in the previous look's, so a
   * line is one change. Nothing in them may change with time alone ("12s ago", an ETA).
   */
  lines: readonly string[];
  /** What `-o json` prints once the watch ends. */
  value: object;
  /** `running` looks again; `done` ends with exit 0; an error is printed after the last screen. */
  outcome: 'running' | 'done' | CliError;
}

export async function watchLive(
  io: CliIo,
  format: OutputFormat,
  intervalSeconds: number,
  look: () => Promise<WatchedLook>,
): Promise<void> {
  const { stdout, stderr } = io;
  const interrupted = new AbortController();
  const stopListening = io.onInterrupt?.(() => interrupted.abort());
  let printed = new Set<string>();
  try {
    for (;;) {
      const { screen, lines, value, outcome } = await look();
      if (format === 'json') {
        if (outcome !== 'running') stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      } else if (stdout.isTTY) stdout.write(`${CLEAR_SCREEN}${screen}`);
      else {
        const changed = lines.filter((line) => !printed.has(line));
        if (changed.length > 0) stdout.write(`${changed.join('\n')}\n`);
        printed = new Set(lines);
      }
      if (outcome instanceof CliError) throw outcome;
      if (outcome === 'done') return;
      await pause(intervalSeconds * 1000, interrupted.signal);
      if (interrupted.signal.aborted) {
        stderr.write('stopped watching\n');
        throw new CliError('interrupted', [], 130);
      }
    }
  } finally {
    stopListening?.();
  }
}

/** Waits `ms`, or less when `signal` aborts; leaves no listener behind either way. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}
