/**
 * The streams and environment a run of `careen` works with. Passed in rather than taken from
 * `process`, so a whole run can happen in-process (tests) without touching the real terminal.
 */
import { type Readable } from 'node:stream';

export interface CliOutput {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** A readable stdin; a terminal also offers raw mode, used to read passwords without echo. */
export type CliInput = Readable & {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?: (mode: boolean) => unknown;
};

export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  env: Record<string, string | undefined>;
  /** Absent means "nothing to read": no prompts, and --password-stdin reads an empty input. */
  stdin?: CliInput;
  /** The clock, for login expiry; the real one when absent. */
  now?: () => Date;
  /**
   * Calls `handler` on Ctrl-C (SIGINT) until the returned function is called, for a command
   * that runs until stopped; absent: Ctrl-C ends the process as usual.
   */
  onInterrupt?: (handler: () => void) => () => void;
}
