/**
 * A hub service run as its own process from its sources, for tests that kill it with SIGKILL
 * and start it again on the same port: the process, not a launcher in front of it, gets the signal.
 */
import { eventually, http } from '@careen/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const repoRoot = resolve(__dirname, '..', '..');

export class KillableService {
  private child: ChildProcess | undefined;

  constructor(
    private readonly app: string,
    readonly port: number,
    private readonly env: () => Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the service and waits until it is ready. */
  async start(): Promise<void> {
    this.child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', resolve(repoRoot, `apps/${this.app}/src/main.ts`)],
      {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? '', CAREEN_LOG_LEVEL: 'error', ...this.env() },
        stdio: 'ignore',
      },
    );
    await eventually(async () => expect((await http(this.url, 'GET', '/readyz')).status).toBe(200), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
  }

  /** SIGKILL, and wait for the process to be gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
  }
}
