import { outboxSchemaDown, outboxSchemaUp } from '@careen/persistence';
import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The maintenance-session schema starts with its outbox and inbox; its features add their tables. */
export class InitMaintenanceSession1763769600000 implements MigrationInterface {
  name = 'InitMaintenanceSession1763769600000';

  async up(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaUp('maintenance_session')) await runner.query(sql);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaDown('maintenance_session')) await runner.query(sql);
  }
}
