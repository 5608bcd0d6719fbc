import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A maintenance session takes a host's slot in its HA group's semaphore before the host goes
 * into maintenance, the same slot agent upgrades and FleetLock reboots take.
 */
export class MaintenanceHolders1764100400000 implements MigrationInterface {
  name = 'MaintenanceHolders1764100400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE agbot.upgrade_grants
        DROP CONSTRAINT upgrade_grants_holder_kind_check,
        ADD CONSTRAINT upgrade_grants_holder_kind_check
          CHECK (holder_kind IN ('agent-upgrade', 'fleetlock', 'maintenance'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM agbot.upgrade_grants WHERE holder_kind = 'maintenance'`);
    await runner.query(`
      ALTER TABLE agbot.upgrade_grants
        DROP CONSTRAINT upgrade_grants_holder_kind_check,
        ADD CONSTRAINT upgrade_grants_holder_kind_check CHECK (holder_kind IN ('agent-upgrade', 'fleetlock'))`);
  }
}
