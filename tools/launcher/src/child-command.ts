/** Runs a command with the terminal's stdio and answers its exit code, as a shell would. */
import { spawn, type StdioOptions } from 'node:child_process';
import { constants } from 'node:os';

const RELAYED_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP'];

export interface CommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Collects what the command prints here instead of showing it as it comes. */
  output?: (chunk: Buffer) => void;
}

export function runCommand(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<number> {
  return new Promise((resolve) => {
    const collect = options.output;
    const stdio: StdioOptions = collect ? ['ignore', 'pipe', 'pipe'] : 'inherit';
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio });
    if (collect) {
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
    }
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
    // Collected output is complete only once the pipes close, after the exit.
    child.once(collect ? 'close' : 'exit', (code: number | null, signal: NodeJS.Signals | null) =>
      settle(code ?? 128 + (signal ? constants.signals[signal] : 0)),
    );
  });
}
