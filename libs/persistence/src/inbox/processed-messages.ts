/**
 * The idempotent-consumer record: a handler's effects and the note that a message was
 * handled commit together, so a redelivered message changes nothing twice.
 */
import { type DataSource, type EntityManager } from 'typeorm';
import { schemaOf } from '../run-migrations';

export class ProcessedMessages {
  private readonly schema: string;

  constructor(private readonly dataSource: DataSource) {
    this.schema = schemaOf(dataSource);
  }

  /** Runs `apply` in a transaction unless `messageId` was already handled by `consumer`; returns whether it ran. */
  async applyOnce(
    consumer: string,
    messageId: string,
    apply: (manager: EntityManager) => Promise<void>,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const inserted: unknown[] = await manager.query(
        `INSERT INTO "${this.schema}".processed_messages (consumer, message_id) VALUES ($1, $2)
         ON CONFLICT DO NOTHING RETURNING message_id`,
        [consumer, messageId],
      );
      if (inserted.length === 0) return false;
      await apply(manager);
      return true;
    });
  }

  /**
   * Forgets messages handled more than `olderThanMs` ago: the bus redelivers only within its
   * ack wait times max deliveries, so older records can no longer stop a duplicate.
   */
  async prune(olderThanMs: number): Promise<number> {
    const [, count] = (await this.dataSource.query(
      `DELETE FROM "${this.schema}".processed_messages WHERE processed_at < now() - make_interval(secs => $1)`,
      [olderThanMs / 1000],
    )) as [unknown, number];
    return count;
  }
}
