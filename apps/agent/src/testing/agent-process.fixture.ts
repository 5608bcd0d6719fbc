/**
 * Runs `careen-agent` as a real process under a small supervisor that starts it again when it
 * exits to be restarted (RESTART_EXIT_CODE), as systemd's Restart=on-failure does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { RESTART_EXIT_CODE } from '../upgrade/install-strategy';

const main = resolve(__dirname, '..', 'main.ts');

export interface SupervisedAgent {
  /** Every JSON log line of every run, in order. */
  lines(): Record<string, unknown>[];
  messages(): string[];
  runs(): number;
  /** Kills the running process at once (SIGKILL) and does not start it again. */
  kill(): Promise<void>;
  /** Stops it cleanly (SIGTERM) and waits for the exit. */
  stop(): Promise<number | null>;
  stderr(): string;
}

export function superviseAgent(env: Record<string, string>): SupervisedAgent {
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  let runs = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let supervising = true;

  const start = () => {
    runs += 1;
    const proc = spawn(process.execPath, ['-r', '@swc-node/register', main], {
      cwd: resolve(__dirname, '../../../..'),
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let buffered = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const complete = buffered.split('\n');
      buffered = complete.pop() ?? '';
      for (const line of complete) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    exited = new Promise((done) =>
      proc.once('close', (code) => {
        if (supervising && code === RESTART_EXIT_CODE) start();
        done(code);
      }),
    );
  };
  start();

  return {
    lines: () => lines,
    messages: () => lines.map((line) => String(line.msg)),
    runs: () => runs,
    stderr: () => stderr,
    kill: async () => {
      supervising = false;
      child?.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      supervising = false;
      child?.kill('SIGTERM');
      return exited;
    },
  };
}
