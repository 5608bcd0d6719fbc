import { outboxSchemaDown, outboxSchemaUp } from '@careen/persistence';
import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The notifier schema starts with its outbox and inbox; its features add their tables. */
export class InitNotifier1763769600000 implements MigrationInterface {
  name = 'InitNotifier1763769600000';

  async up(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaUp('notifier')) await runner.query(sql);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaDown('notifier')) await runner.query(sql);
  }
}
