import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * FleetLock clients refused a reboot slot, so that operators see who waits for a group's slot
 * (FleetLock clients ask again by themselves; nothing else remembers them between asks).
 */
export class FleetLockWaiters1764400500000 implements MigrationInterface {
  name = 'FleetLockWaiters1764400500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE agbot.fleetlock_waiters (
        org text NOT NULL,
        node text NOT NULL,
        ha_group text NOT NULL,
        first_refused_at timestamptz NOT NULL,
        last_refused_at timestamptz NOT NULL,
        PRIMARY KEY (org, node)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE agbot.fleetlock_waiters');
  }
}
