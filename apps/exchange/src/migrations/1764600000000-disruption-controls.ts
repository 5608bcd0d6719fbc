import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * An org's disruption controls (maintenance windows, freezes, budgets, alert gates), one row each, their
 * settings as given; and an HA group's own budget, `max_unavailable`, which is one member when
 * unset.
 */
export class DisruptionControls1764600000000 implements MigrationInterface {
  name = 'DisruptionControls1764600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.disruption_controls (
        org text NOT NULL REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('window', 'freeze', 'budget', 'gate')),
        name text NOT NULL,
        description text,
        selector jsonb NOT NULL,
        settings jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, kind, name)
      )`);
    await runner.query('ALTER TABLE exchange.ha_groups ADD COLUMN max_unavailable jsonb');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE exchange.ha_groups DROP COLUMN max_unavailable');
    await runner.query('DROP TABLE exchange.disruption_controls');
  }
}
