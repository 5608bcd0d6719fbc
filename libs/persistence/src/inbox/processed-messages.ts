/**
 * The idempotent-consumer record: a handler's effects and the note that a message was
 * handled commit together, so a redelivered message changes nothing twice.
 */
import { type DataSource, type EntityManager } from 'typeorm';
import { NamedStatement } from '../named-statement';
import { schemaOf } from '../run-migrations';

export class ProcessedMessages {
  private readonly schema: string;
  private readonly record: NamedStatement;

  constructor(private readonly dataSource: DataSource) {
    this.schema = schemaOf(dataSource);
    this.record = new NamedStatement(
      `processed-messages-record:${this.schema}`,
      `INSERT INTO "${this.schema}".processed_messages (consumer, message_id)
       SELECT $1, id FROM unnest($2::text[]) AS id
       ON CONFLICT DO NOTHING RETURNING message_id`,
    );
  }

  /**
   * Runs `apply` in one transaction with the messages `consumer` had not yet handled among
   * `messageIds` (`fresh`, the ids it must act on); every one of them is recorded as handled
   * when it commits, in one statement.
   */
  async applyEachOnce(
    consumer: string,
    messageIds: readonly string[],
    apply: (manager: EntityManager, fresh: Set<string>) => Promise<void>,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const inserted = await this.record.run<{ message_id: string }[]>(manager, [consumer, messageIds]);
      if (inserted.length === 0) return;
      await apply(manager, new Set(inserted.map((row) => row.message_id)));
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
