// The `careen` command: runs one command with the process's streams and exits with its code.
import { EXIT_CLOSED_PIPE, runCli } from './run-cli';

/** Exits once stdout and stderr have taken everything written, so piped output is never cut. */
function exitAfterFlush(code: number): void {
  let pending = 2;
  const done = () => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

/**
 * Whoever read the output has gone (`careen … | head`): there is no one left to tell anything,
 * so the command ends at once and quietly, as a command killed by SIGPIPE would.
 */
function endOnClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(EXIT_CLOSED_PIPE);
  throw error;
}
process.stdout.on('error', endOnClosedPipe);
process.stderr.on('error', endOnClosedPipe);

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  onInterrupt: (handler) => {
    process.once('SIGINT', handler);
    return () => process.off('SIGINT', handler);
  },
}).then(exitAfterFlush, (error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  exitAfterFlush(1);
});
