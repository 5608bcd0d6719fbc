/** `careen` as an operator runs it: its own process (the command on PATH), in a folder of theirs. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The `careen` command, as `npm link` puts it on PATH. */
export const CAREEN = join(resolve(__dirname, '..', '..'), 'tools', 'launcher', 'careen.js');
/** The `careen-agent` command, likewise. */
export const CAREEN_AGENT = join(resolve(__dirname, '..', '..'), 'tools', 'launcher', 'careen-agent.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `careen args…` in `cwd` with `env` as its whole environment (PATH is kept), and gives its
 * exit code and output whatever the code.
 */
export function runCareen(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCommand(CAREEN, args, cwd, env);
}

/** `careen-agent args…`, as `runCareen` runs `careen`. */
export function runCareenAgent(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCommand(CAREEN_AGENT, args, cwd, env);
}

function runCommand(script: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd, env: { PATH: process.env.PATH, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}
