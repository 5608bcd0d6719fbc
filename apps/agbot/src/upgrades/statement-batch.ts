/**
 * Runs a grant's or release's statements in as few round trips as Postgres allows. A grant holds
 * its group's advisory lock from its read to its commit, and every round trip in between is time
 * the lock and a pooled connection are held: on a connection of its own, a batch's statements
 * go as one multi-statement query (so values are written as escaped literals, never spliced
 * raw); inside a caller's transaction they run one by one on its manager.
 */
import { escapeLiteral, type PoolClient, type QueryResult } from 'pg';
import { type EntityManager } from 'typeorm';
import { type PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

export type SqlValue = string | number | boolean | Date | null;

/** A value as a SQL literal. */
export function literal(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  if (value instanceof Date) return `${escapeLiteral(value.toISOString())}::timestamptz`;
  return escapeLiteral(value);
}

export interface StatementBatch {
  /** Whether the batch must frame its work in BEGIN … COMMIT itself. */
  readonly ownsTransaction: boolean;
  /** Runs the statements in order; answers each one's rows. */
  run(statements: readonly string[]): Promise<unknown[][]>;
}

/**
 * Runs the work with a batch on the manager's transaction when it has one, otherwise on a pooled
 * connection of its own (whose transaction the work begins and ends); on failure, an open
 * transaction of its own is rolled back.
 */
export async function withStatementBatch<T>(
  manager: EntityManager,
  work: (batch: StatementBatch) => Promise<T>,
): Promise<T> {
  if (manager.queryRunner?.isTransactionActive) return work(onManager(manager));
  const runner = manager.connection.createQueryRunner() as PostgresQueryRunner;
  try {
    const client = (await runner.connect()) as PoolClient;
    const batch = onClient(client);
    try {
      return await work(batch);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await runner.release();
  }
}

function onClient(client: PoolClient): StatementBatch {
  return {
    ownsTransaction: true,
    async run(statements) {
      const results = (await client.query(statements.join(';\n'))) as QueryResult | QueryResult[];
      return (Array.isArray(results) ? results : [results]).map((result) => result.rows);
    },
  };
}

function onManager(manager: EntityManager): StatementBatch {
  return {
    ownsTransaction: false,
    async run(statements) {
      const rows: unknown[][] = [];
      for (const statement of statements) {
        const result = await manager.queryRunner!.query(statement, undefined, true);
        rows.push((result.records ?? []) as unknown[]);
      }
      return rows;
    },
  };
}
