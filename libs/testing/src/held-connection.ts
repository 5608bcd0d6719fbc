/**
 * Connections held open in a transaction, so that a test sees what waits for them: one of a
 * data source's pooled connections, or the rows a query locks.
 */
import { type DataSource } from 'typeorm';
import { withClient } from './test-database';

/** One of a data source's pooled connections, held until `free`: every connection of a small pool busy. */
export async function holdAConnection(dataSource: DataSource): Promise<{ free: () => Promise<void> }> {
  const holder = dataSource.createQueryRunner();
  // BEGIN takes a connection and keeps it until the transaction ends.
  await holder.startTransaction();
  return {
    free: async () => {
      await holder.commitTransaction();
      await holder.release();
    },
  };
}

/**
 * Runs `fn` while a connection of its own holds the rows `lockQuery` locks (`… FOR UPDATE`) in an
 * open transaction, which it rolls back after.
 */
export function whileRowsLocked<T>(databaseUrl: string, lockQuery: string, fn: () => Promise<T>): Promise<T> {
  return withClient(databaseUrl, async (holder) => {
    await holder.query('BEGIN');
    try {
      await holder.query(lockQuery);
      return await fn();
    } finally {
      await holder.query('ROLLBACK');
    }
  });
}
