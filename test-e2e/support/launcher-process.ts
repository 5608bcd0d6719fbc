/** Running `npm start` from a test: free ports for it, its output awaited, its exit. */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort, HUB_SERVICES, isPortFree } from '@careen/devstack';

const REPO_ROOT = resolve(__dirname, '..', '..');

export interface RunningLauncher {
  child: ChildProcess;
  /** Everything it printed so far, both streams. */
  output(): string;
}

/**
 * Runs the launcher (`npm start -- <args>`) of the checkout at `checkout` (this one unless told)
 * with `env` added to this process's environment.
 */
export function spawnLauncher(args: string[], env: NodeJS.ProcessEnv, checkout = REPO_ROOT): RunningLauncher {
  const child = spawn(process.execPath, [join(checkout, 'tools', 'launcher', 'start.js'), ...args], {
    cwd: checkout,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/**
 * A state folder (CAREEN_HOME) for a test's launcher: a fresh temporary folder that Postgres's
 * own user (under root) may enter, so that the cluster keeps its data inside it and goes with it.
 */
export function launcherHome(name: string): string {
  const home = mkdtempSync(join(tmpdir(), `careen-${name}-`));
  chmodSync(home, 0o755);
  return home;
}

/** A free port for each port the launcher takes: Postgres, NATS, the console and each hub service. */
export async function freeLauncherPorts(): Promise<Record<string, string>> {
  const ports: Record<string, string> = {};
  for (const envVar of [
    'CAREEN_PG_PORT',
    'CAREEN_NATS_PORT',
    'CAREEN_CONSOLE_PORT',
    ...HUB_SERVICES.map((service) => service.portEnv),
  ])
    ports[envVar] = String(await freePort());
  return ports;
}

/** What the ready summary says of the demo: its org admin's password and the nodes its app runs on. */
export function demoOfSummary(output: string): { password: string | undefined; appHosts: string[] } {
  return {
    password: /Demo admin +org "demo", user "admin", password (\S+)/.exec(output)?.[1],
    appHosts: /Demo app .* on half the fleet: ([\w, -]+?);/.exec(output)?.[1]?.split(', ') ?? [],
  };
}

/** Stops a launcher a test left running: SIGTERM, then SIGKILL if it is still there after 30 s. */
export async function stopLauncher(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await exitOf(child, 30_000).catch(() => child.kill('SIGKILL'));
}

export function untilOutputContains(
  child: ChildProcess,
  text: string,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`no "${text}" within ${timeoutMs} ms; output:\n${output()}`)),
      timeoutMs,
    );
    const onData = () => {
      if (output().includes(text)) finish();
    };
    const onExit = (code: number | null) =>
      finish(new Error(`the launcher exited (${code}) before "${text}"; output:\n${output()}`));
    const finish = (error?: Error) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolvePromise();
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

export function exitOf(
  child: ChildProcess,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`still running ${timeoutMs} ms after SIGTERM`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal });
    });
  });
}

export function accepts(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

/** `count` free ports in a row, none of them in `taken` (a NATS cluster's client ports), free as the launcher checks. */
export async function freePortRun(count: number, taken: number[]): Promise<number> {
  for (;;) {
    const first = await freePort();
    const run = Array.from({ length: count }, (_, offset) => first + offset);
    const free = await Promise.all(
      run.map(async (port) => !taken.includes(port) && (await isPortFree(port))),
    );
    if (free.every(Boolean)) return first;
  }
}
