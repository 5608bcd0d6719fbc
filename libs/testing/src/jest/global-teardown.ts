/**
 * Stops the run's Postgres. Then, should anything a test left behind (a server, a socket, a
 * child process, a retry timer) still hold the process a minute later, names what it is and
 * ends the process with jest's own exit code: a leak is reported, and never turns a finished
 * run into one that hangs until its CI job is killed.
 */
import { ChildProcess } from 'node:child_process';
import { Server, Socket } from 'node:net';

const LINGER_MS = 60_000;

export default async function globalTeardown(): Promise<void> {
  await globalThis.__careenTestPostgres?.stop();
  // Unreferenced: it fires only when something else still keeps the process alive.
  setTimeout(reportLeftoversAndExit, LINGER_MS).unref();
}

function reportLeftoversAndExit(): void {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  const leftovers = handles.map(describe).filter((line) => line !== undefined);
  process.stderr.write(
    `\nThe test run ended ${LINGER_MS / 1000} s ago, yet these still hold the process (a test did not close them):\n` +
      `  ${process.getActiveResourcesInfo().join(', ')}\n` +
      leftovers.map((line) => `  ${line}\n`).join(''),
  );
  // Jest sets process.exitCode from the results as the process exits.
  process.exit();
}

function describe(handle: unknown): string | undefined {
  if (handle === process.stdin || handle === process.stdout || handle === process.stderr) return undefined;
  if (handle instanceof ChildProcess) return `child process ${handle.pid}: ${handle.spawnargs.join(' ')}`;
  if (handle instanceof Socket)
    return `socket ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`;
  if (handle instanceof Server) return `server listening on ${JSON.stringify(handle.address())}`;
  return (handle as object).constructor.name;
}
