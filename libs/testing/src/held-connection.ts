/**
 * One of a data source's pooled connections, held in an open transaction until `free`: how a
 * test makes every connection of a small pool busy, to see what waits for one.
 */
import { type DataSource } from 'typeorm';

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
