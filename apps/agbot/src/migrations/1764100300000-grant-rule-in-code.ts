import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { APPEND_UPGRADE_EVENT, ISO_TIME } from './1764000100000-upgrade-grants';
import { ACQUIRE_UPGRADE_SLOT_V2, RELEASE_UPGRADE_SLOT_V2 } from './1764100200000-upgrade-halts';

/**
 * The semaphore's rule moves into the agbot's code (upgrades/slot-rule.ts, carried out by
 * upgrades/grant-store.ts), with its events written from their typed definitions: the grant
 * and release functions, and the helpers only they used, go. The tables, the lock key function
 * and the advisory lock stay: Postgres is still the lock.
 */
export class GrantRuleInCode1764100300000 implements MigrationInterface {
  name = 'GrantRuleInCode1764100300000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('DROP FUNCTION agbot.acquire_upgrade_slot');
    await runner.query('DROP FUNCTION agbot.release_upgrade_slot');
    await runner.query('DROP FUNCTION agbot.append_upgrade_event');
    await runner.query('DROP FUNCTION agbot.iso_time');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(ISO_TIME);
    await runner.query(APPEND_UPGRADE_EVENT);
    await runner.query(RELEASE_UPGRADE_SLOT_V2);
    await runner.query(ACQUIRE_UPGRADE_SLOT_V2);
  }
}
