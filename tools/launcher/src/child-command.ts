/** Runs a command with the terminal's stdio and answers its exit code, as a shell would. */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const RELAYED_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP'];

export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: 'inherit' });
    // Ctrl-C reaches the child from the terminal directly; termination requests sent to us
    // are passed on, and our own SIGINT handler keeps us alive to report the child's end.
    const relay = (signal: NodeJS.Signals) => child.kill(signal);
    const ignoreInterrupt = () => undefined;
    for (const signal of RELAYED_SIGNALS) process.on(signal, relay);
    process.on('SIGINT', ignoreInterrupt);
    const settle = (code: number) => {
      for (const signal of RELAYED_SIGNALS) process.removeListener(signal, relay);
      process.removeListener('SIGINT', ignoreInterrupt);
      resolve(code);
    };
    child.once('error', (error) => {
      process.stderr.write(`could not run ${command}: ${error.message}\n`);
      settle(127);
    });
    child.once('exit', (code, signal) => settle(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}
