import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A delivery keeps its event's CAREEN_MAINT stream sequence, the id the event stream (SSE)
 * gives the same event, so that a webhook carries both of the event's ids. Deliveries owed
 * before have none.
 */
export class DeliveryEventSequence1764400000000 implements MigrationInterface {
  name = 'DeliveryEventSequence1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE notifier.deliveries ADD COLUMN event_sequence bigint');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE notifier.deliveries DROP COLUMN event_sequence');
  }
}
