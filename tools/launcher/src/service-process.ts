/**
 * One hub service run from its TypeScript sources as a child process: all of its output goes
 * to its log file, warnings and errors also to the console.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { stopChild, type HubService } from '@careen/devstack';
import { consoleLineFor, type OutputStream } from './console-log';
import { serviceEntry } from './hub-services';
import { rotateLog } from './log-files';
import { REPO_ROOT } from './repo-root';

/** How long a service may drain after SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;

export interface ServiceExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  service: HubService;
  url: string;
  logFile: string;
  child: ChildProcess;
  /** Settles when the process has exited and its log is flushed. */
  exited: Promise<ServiceExit>;
  isRunning(): boolean;
  stop(): Promise<void>;
}

export interface SpawnServiceOptions {
  service: HubService;
  port: number;
  env: NodeJS.ProcessEnv;
  logFile: string;
  color: boolean;
  print: (line: string) => void;
}

export function spawnService(options: SpawnServiceOptions): ServiceProcess {
  const { service, logFile } = options;
  rotateLog(logFile);
  const log = createWriteStream(logFile, { flags: 'w' });
  const register = require.resolve('@swc-node/register', { paths: [REPO_ROOT] });
  // A process group of its own: signals reach a service only from the launcher, in order.
  const child = spawn(process.execPath, ['-r', register, serviceEntry(service.name)], {
    cwd: REPO_ROOT,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const copyLines = (input: Readable, stream: OutputStream) =>
    new Promise<void>((resolve) => {
      const lines = createInterface({ input, crlfDelay: Infinity });
      lines.on('line', (line) => {
        log.write(`${line}\n`);
        const shown = consoleLineFor(service.name, line, stream, options.color);
        if (shown !== undefined) options.print(shown);
      });
      lines.once('close', resolve);
    });
  const copied = Promise.all([
    copyLines(child.stdout as Readable, 'stdout'),
    copyLines(child.stderr as Readable, 'stderr'),
  ]);
  const exited = new Promise<ServiceExit>((resolve) => {
    child.once('error', (error) => {
      log.write(`could not start: ${error.message}\n`);
      resolve({ code: 1, signal: null });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).then(async (exit) => {
    await copied;
    await new Promise<void>((resolve) => log.end(resolve));
    return exit;
  });
  return {
    service,
    url: `http://127.0.0.1:${options.port}`,
    logFile,
    child,
    exited,
    isRunning: () => child.exitCode === null && child.signalCode === null,
    stop: async () => {
      await stopChild(child, STOP_GRACE_MS);
      await exited;
    },
  };
}

/** How a child process ends, also when it has ended already. */
export function exitOf(child: ChildProcess): Promise<ServiceExit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

export function describeExit(exit: ServiceExit): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}
