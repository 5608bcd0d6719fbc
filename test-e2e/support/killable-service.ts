/**
 * A hub service run as its own process from its sources, for tests that kill it with SIGKILL
 * and start it again on the same port: the process, not a launcher in front of it, gets the signal.
 */
import { eventually, http } from '@careen/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const repoRoot = resolve(__dirname, '..', '..');
/** How long a service may take to be ready. */
const READY_WITHIN_MS = 30_000;
/** How much of a service's own output is kept, to tell why it did not start. */
const OUTPUT_KEPT = 8_192;

export class KillableService {
  private child: ChildProcess | undefined;
  /** The end of what it printed, over all its starts. */
  private printed = '';

  constructor(
    private readonly app: string,
    readonly port: number,
    private readonly env: () => Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Starts the service and waits until it is ready. One that is not ready in time is killed,
   * and the error carries the end of what it printed.
   */
  async start(): Promise<void> {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', resolve(repoRoot, `apps/${this.app}/src/main.ts`)],
      {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? '', CAREEN_LOG_LEVEL: 'error', ...this.env() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    const keep = (chunk: Buffer) => (this.printed = (this.printed + chunk.toString()).slice(-OUTPUT_KEPT));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    try {
      const ready = async () => (await http(this.url, 'GET', '/readyz', { timeoutMs: 2_000 })).status;
      await eventually(async () => expect(await ready()).toBe(200), {
        timeoutMs: READY_WITHIN_MS,
        intervalMs: 100,
      });
    } catch (error) {
      const exit = child.exitCode ?? child.signalCode;
      await this.kill();
      throw new Error(
        `${this.app} on port ${this.port} was not ready in ${READY_WITHIN_MS / 1000} s (${exit === null ? 'still running' : `exited: ${exit}`}): ${String(error)}\n${this.printed}`,
      );
    }
  }

  /** The end of what the service printed (its errors, at the tests' log level). */
  get output(): string {
    return this.printed;
  }

  /** SIGKILL, and wait for the process to be gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
  }
}
