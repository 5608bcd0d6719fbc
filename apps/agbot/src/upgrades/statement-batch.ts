/**
 * Runs a grant's or release's statements in as few round trips as Postgres allows. A grant holds
 * its group's advisory lock from its read to its commit, and every round trip in between is time
 * the lock and a pooled connection are held: on a connection of its own, a batch's statements
 * go as one multi-statement query. Such a query cannot carry bound values, so each statement is
 * prepared on the connection once (SQL PREPARE, the first time the connection runs it) and
 * then sent as EXECUTE with its values as escaped literals, never spliced into the statement:
 * Postgres parses and plans it once per connection instead of at every grant. Inside a caller's
 * transaction the statements run one by one on its manager, as named statements with bound
 * values (node-postgres parses each once per connection too).
 */
import { NamedStatement } from '@careen/persistence';
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

/**
 * A statement with parameters ($1, $2, …) that batches send, prepared on every connection under
 * its name, so the name must be unique among named statements; its parameters need a type
 * Postgres can infer where they stand (cast them where it cannot).
 */
export class BatchStatement extends NamedStatement {
  /** Its name as SQL PREPARE gives it, apart from node-postgres's (the namespace is shared). */
  readonly prepared: string;

  constructor(name: string, text: string) {
    super(name, text);
    this.prepared = `"batch:${name.replaceAll('"', '""')}"`;
  }

  with(...values: SqlValue[]): BatchCall {
    return { statement: this, values };
  }
}

export interface BatchCall {
  statement: BatchStatement;
  values: readonly SqlValue[];
}

/** A call, or transaction control (`BEGIN`, `COMMIT`) as plain text. */
export type BatchItem = BatchCall | 'BEGIN' | 'COMMIT';

export interface StatementBatch {
  /** Whether the batch must frame its work in BEGIN … COMMIT itself. */
  readonly ownsTransaction: boolean;
  /** Runs the statements in order; answers each one's rows. */
  run(items: readonly BatchItem[]): Promise<unknown[][]>;
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

/** The batch statements each pooled connection has prepared; a new connection starts with none. */
const preparedOn = new WeakMap<PoolClient, Set<string>>();

/**
 * Prepares on the connection the statements it has not prepared yet, each in a round trip of its
 * own (once in the connection's life): a PREPARE outlives the transaction it ran in, even one
 * that failed, so one sent inside a batch could not be known to exist when the batch failed.
 */
async function prepare(client: PoolClient, items: readonly BatchItem[]): Promise<void> {
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = new Set()));
  for (const item of items) {
    if (typeof item === 'string' || prepared.has(item.statement.name)) continue;
    await client.query(`PREPARE ${item.statement.prepared} AS ${item.statement.text}`);
    prepared.add(item.statement.name);
  }
}

function onClient(client: PoolClient): StatementBatch {
  return {
    ownsTransaction: true,
    async run(items) {
      await prepare(client, items);
      const text = items.map((item) => (typeof item === 'string' ? item : execute(item))).join(';\n');
      const results = (await client.query(text)) as QueryResult | QueryResult[];
      return (Array.isArray(results) ? results : [results]).map((result) => result.rows);
    },
  };
}

function execute({ statement, values }: BatchCall): string {
  return values.length === 0
    ? `EXECUTE ${statement.prepared}`
    : `EXECUTE ${statement.prepared}(${values.map(literal).join(', ')})`;
}

function onManager(manager: EntityManager): StatementBatch {
  return {
    ownsTransaction: false,
    async run(items) {
      const rows: unknown[][] = [];
      for (const item of items) {
        const result =
          typeof item === 'string'
            ? await manager.queryRunner!.query(item, undefined, true)
            : await manager.queryRunner!.query(item.statement.query(), [...item.values], true);
        rows.push((result.records ?? []) as unknown[]);
      }
      return rows;
    },
  };
}
