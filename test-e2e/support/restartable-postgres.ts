/** A Postgres a test can stop (fast shutdown) and start again on the same data and port. */
import { freePort } from '@careen/devstack';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repoRoot = resolve(__dirname, '..', '..');

export class RestartablePostgres {
  private readonly folder = mkdtempSync(join(tmpdir(), 'careen-restart-pg-'));
  private child: ChildProcess | undefined;
  private port = 0;

  constructor() {
    // Under root, Postgres runs as its own user, which must be able to reach its data folder.
    chmodSync(this.folder, 0o755);
  }

  /** The connection URL of its `postgres` database. */
  get url(): string {
    return `postgres://careen:careen@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    this.port ||= await freePort();
    const child = spawn(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        join(__dirname, 'postgres-process.ts'),
        join(this.folder, 'data'),
        String(this.port),
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.child = child;
    await new Promise<void>((ready, failed) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('ready\n')) ready();
      });
      child.once('exit', (code) => failed(new Error(`Postgres exited (${code}) before it was ready`)));
    });
  }

  /** A fast shutdown: open connections are ended, committed work is kept. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.folder, { recursive: true, force: true });
  }
}
