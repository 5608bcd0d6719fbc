/**
 * A Careen service in a process of its own, as it runs when deployed: migrated first, then
 * started on a free port and awaited until `/readyz` answers. Benchmarks use it so that the
 * load they generate does not share an event loop with the service they measure. Its log (errors
 * only) goes to `careen-bench-<service>.log` in the temporary directory, so a service that dies
 * under load says why. With CAREEN_BENCH_CPU_PROFILE=<dir>, each service writes a CPU profile
 * there when it stops.
 */
import { freePort, stopChild } from '@careen/devstack';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '..', '..');
const TICKS_PER_SECOND = 100;

export interface ServiceProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** Where its error log goes. */
  logFile: string;
  stop(): Promise<void>;
}

function logFileOf(app: string): string {
  return join(tmpdir(), `careen-bench-${app}.log`);
}

/** Node's flags for a CPU profile written to CAREEN_BENCH_CPU_PROFILE at exit, when it is set. */
export function profileFlags(): string[] {
  const dir = process.env.CAREEN_BENCH_CPU_PROFILE;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

const POOL_VARIABLES = ['CAREEN_DATABASE_POOL_SIZE', 'CAREEN_DATABASE_POOL_WAIT_MS'] as const;

function poolSettings(): Record<string, string> {
  return Object.fromEntries(
    POOL_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
}

function runApp(app: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(
    process.execPath,
    [...profileFlags(), '-r', '@swc-node/register', join(REPO, 'apps', app, 'src', 'main.ts'), ...args],
    {
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? '',
        CAREEN_LOG_LEVEL: 'error',
        // A pool size or wait set for the bench applies to every service it runs.
        ...poolSettings(),
        ...env,
      },
      stdio: ['ignore', openSync(logFileOf(app), 'a'), 'inherit'],
    },
  );
}

export async function startServiceProcess(
  name: 'exchange' | 'agbot' | 'notifier' | 'deployment-orchestrator',
  env: Record<string, string>,
): Promise<ServiceProcess> {
  const migrate = runApp(name, ['migrate'], env);
  const [code] = (await once(migrate, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${name} migrate exited ${code}`);
  const port = await freePort();
  const child = runApp(name, [], {
    ...env,
    [`CAREEN_${name.toUpperCase().replace('-', '_')}_PORT`]: String(port),
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopChild(child);
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (i > 600) {
      await stop();
      throw new Error(`${name} not ready after a minute`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return { name, url, child, logFile: logFileOf(name), stop };
}

/** A process's fields from /proc/<pid>/stat, from the state on (the name is left out). */
function statFields(pid: number): string[] {
  const [, fromState] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ');
  if (fromState === undefined) throw new Error(`/proc/${pid}/stat has no ") " after the name`);
  return fromState.split(' ');
}

/** CPU seconds a process has used so far (user + system), from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** A process's resident memory now, in MiB (VmRSS from /proc). */
export function residentMegabytes(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : NaN;
}

/**
 * CPU seconds a process and its children (a Postgres server and its backends) have used so far:
 * the children running now, and those it has waited for (which the kernel adds to its own
 * record), so that the sum does not drop when a backend exits.
 */
export function cpuSecondsWithChildren(pid: number): number {
  // utime and stime, then cutime and cstime: one read of its stat for both.
  const fields = statFields(pid).slice(11, 15).map(Number);
  let total = fields.reduce((sum, ticks) => sum + ticks, 0) / TICKS_PER_SECOND;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(Number(entry))[1]) === pid) total += cpuSeconds(Number(entry));
    } catch {
      // It ended meanwhile.
    }
  }
  return total;
}

/** CPU seconds the whole machine has spent busy (all cores, anything but idle and I/O wait) and in all. */
export function machineCpuSeconds(): { busy: number; total: number } {
  const [cpuLine = ''] = readFileSync('/proc/stat', 'utf8').split('\n', 1);
  const fields = cpuLine.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, each) => sum + each, 0);
  // user nice system idle iowait irq softirq steal …
  const [, , , idle = 0, iowait = 0] = fields;
  return { busy: (total - idle - iowait) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

/**
 * Connections this machine's kernel turned away since it booted because a listening socket's
 * queue of connections not yet accepted was full (TcpExt ListenOverflows): the client's
 * handshake is dropped, and it times out connecting or is reset. NaN when the kernel's TcpExt
 * lines do not count it. Linux only, as the rest of this file.
 */
export function listenOverflows(): number {
  // Two lines: the counters' names, then their values, in the same order.
  const [names = [], values = []] = readFileSync('/proc/net/netstat', 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('TcpExt:'))
    .map((line) => line.split(/\s+/));
  const at = names.indexOf('ListenOverflows');
  return at > 0 ? Number(values[at]) : NaN;
}

/** A server script of the benches in a process of its own, which prints its port once listening. */
export async function startPortScript(
  script: string,
  args: string[],
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...profileFlags(), '-r', '@swc-node/register', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${line.toString().trim()}`, pid: child.pid!, stop: () => stopChild(child) };
}
