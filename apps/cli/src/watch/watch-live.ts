/**
 * The loop of a `watch` command: look, show, and stop when the thing watched is over. On a
 * terminal the screen is redrawn in place; elsewhere a snapshot is appended whenever it changes;
 * with `-o json` only the last view is printed. Ctrl-C stops watching with exit 130.
 */
import { CliError } from '../cli-errors';
import { type CliIo } from '../cli-io';
import { type OutputFormat } from '../output/output';

const CLEAR_SCREEN = '\u001b[H\u001b[2J';

export interface WatchedLook {
  screen: string;
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
  let shown = '';
  try {
    for (;;) {
      const { screen, value, outcome } = await look();
      if (format === 'json') {
        if (outcome !== 'running') stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      } else if (stdout.isTTY) stdout.write(`${CLEAR_SCREEN}${screen}`);
      else if (screen !== shown) stdout.write(`${shown ? '\n' : ''}${screen}`);
      shown = screen;
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
