import { outboxSchemaDown, outboxSchemaUp } from '@careen/persistence';
import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The deployment-orchestrator schema starts with its outbox and inbox; its features add their tables. */
export class InitDeploymentOrchestrator1763769600000 implements MigrationInterface {
  name = 'InitDeploymentOrchestrator1763769600000';

  async up(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaUp('deployment_orchestrator')) await runner.query(sql);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const sql of outboxSchemaDown('deployment_orchestrator')) await runner.query(sql);
  }
}
