/**
 * Readiness's database check, on a connection of its own: it asks whether Postgres answers, not
 * whether the service's pool has a connection free. Asked through the pool, a replica whose
 * requests queue for connections longer than the check's second would call itself not ready
 * just when it is busiest, and the orchestrator would send its load to the other replicas.
 * The connection is opened at the first check, and again at the check after one that failed or
 * after the server dropped it.
 */
import { Client } from 'pg';
import { type ReadinessCheck } from './readiness';

/** A connection that cannot be opened in this time fails the check (which reports after 1 s). */
const CONNECT_TIMEOUT_MS = 5_000;

export class DatabaseProbe implements ReadinessCheck {
  readonly name = 'database';
  private client: Promise<Client> | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly service: string,
  ) {}

  async check(): Promise<void> {
    const connecting = (this.client ??= this.connect());
    try {
      await (await connecting).query('SELECT 1');
    } catch (error) {
      void this.forget(connecting);
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.client) await this.forget(this.client);
  }

  /** Not async: the promise it answers is the one kept, and the one its error handler forgets. */
  private connect(): Promise<Client> {
    const client = new Client({
      connectionString: this.databaseUrl,
      application_name: `${this.service}-readiness`,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    const connecting = client.connect().then(() => client);
    // A connection the server ends between checks (a restart, a failover) is opened afresh.
    client.on('error', () => void this.forget(connecting));
    return connecting;
  }

  /** Drops and ends `connecting` unless a newer connection has taken its place. */
  private async forget(connecting: Promise<Client>): Promise<void> {
    if (this.client !== connecting) return;
    this.client = undefined;
    await connecting.then((client) => client.end()).catch(() => undefined);
  }
}
