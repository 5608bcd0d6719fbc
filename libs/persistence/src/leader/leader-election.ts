/**
 * One leader among any number of replicas, elected in Postgres: the leader holds a session
 * advisory lock on a dedicated connection. When the leader dies its connection goes, the lock
 * with it, and a standby that retries every `retryMs` takes over. A leader that loses its
 * connection (checked every `retryMs`) stops leading at once: its `lead` signal aborts.
 */
import { Client } from 'pg';

export interface LeaderLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface LeaderElectionOptions {
  databaseUrl: string;
  /** What is led, e.g. `careen:agbot:controller`; replicas with the same key compete. */
  key: string;
  /** How often a standby tries to take over and a leader checks its connection. */
  retryMs?: number;
  logger?: LeaderLogger;
  /** Runs while this replica leads; must finish soon after `signal` aborts. */
  lead: (signal: AbortSignal) => Promise<void>;
}

export class LeaderElection {
  private stopped = true;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private leading = false;

  constructor(private readonly options: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  get key(): string {
    return this.options.key;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const client = new Client({
        connectionString: this.options.databaseUrl,
        application_name: this.options.key,
      });
      const lost = new AbortController();
      client.on('error', () => lost.abort());
      client.on('end', () => lost.abort());
      try {
        await client.connect();
        if (await this.acquire(client, lost.signal)) await this.serve(client, lost);
      } catch (error) {
        if (!this.stopped)
          this.options.logger?.warn(
            { key: this.options.key, err: String(error) },
            'leader election interrupted',
          );
      } finally {
        lost.abort();
        await client.end().catch(() => undefined);
      }
      if (!this.stopped) await this.pause();
    }
  }

  private async acquire(client: Client, lost: AbortSignal): Promise<boolean> {
    while (!this.stopped && !lost.aborted) {
      const { rows } = await client.query<{ acquired: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS acquired',
        [this.options.key],
      );
      if (rows[0]?.acquired) return true;
      await this.pause();
    }
    return false;
  }

  private async serve(client: Client, lost: AbortController): Promise<void> {
    this.leading = true;
    this.options.logger?.info({ key: this.options.key }, 'leading');
    const leading = this.options.lead(lost.signal).catch((error: unknown) => {
      this.options.logger?.warn(
        { key: this.options.key, err: String(error) },
        'leader work failed; resigning',
      );
      lost.abort();
    });
    try {
      while (!this.stopped && !lost.signal.aborted) {
        await this.pause();
        if (!lost.signal.aborted) await client.query('SELECT 1');
      }
    } finally {
      this.leading = false;
      lost.abort();
      await leading;
      this.options.logger?.info({ key: this.options.key }, 'stopped leading');
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.options.retryMs ?? 1_000);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
