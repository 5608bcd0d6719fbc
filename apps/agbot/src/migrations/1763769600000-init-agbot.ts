import { outboxSchemaDown, outboxSchemaUp } from '@careen/persistence';
import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The agbot schema starts with its outbox and inbox; its features add their tables. */
export class InitAgbot1763769600000 implements MigrationInterface {
  name = 'InitAgbot1763769600000';

  async up(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaUp('agbot')) await runner.query(sql);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaDown('agbot')) await runner.query(sql);
  }
}
