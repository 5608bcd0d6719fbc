import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Users' roles become hubAdmin, orgAdmin, operator and viewer. The former `user` role is the
 * operator: it keeps what it could do (its own nodes, HA groups) and gains the operations
 * (sessions, rollouts, upgrades, pauses, resets); `viewer` is new and changes nothing. Rows
 * saying `user` stay as they are, so that the previous release still reads them through an
 * upgrade and after a rollback; this release reads them as `operator`.
 */
export class OperatorViewerRoles1764800000000 implements MigrationInterface {
  name = 'OperatorViewerRoles1764800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE exchange.users DROP CONSTRAINT users_role_check');
    await runner.query(`
      ALTER TABLE exchange.users ADD CONSTRAINT users_role_check
        CHECK (role IN ('hubAdmin', 'orgAdmin', 'operator', 'viewer', 'user'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE exchange.users DROP CONSTRAINT users_role_check');
    await runner.query(`UPDATE exchange.users SET role = 'user' WHERE role IN ('operator', 'viewer')`);
    await runner.query(`
      ALTER TABLE exchange.users ADD CONSTRAINT users_role_check
        CHECK (role IN ('hubAdmin', 'orgAdmin', 'user'))`);
  }
}
