import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * HA groups. Membership lives in one place, `nodes.ha_group`, tied to the group by a foreign
 * key: a node is in at most one group, and a group's members and its nodes' haGroup cannot
 * disagree, because they are the same column.
 */
export class HaGroups1763900000000 implements MigrationInterface {
  name = 'HaGroups1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.ha_groups (
        org text NOT NULL REFERENCES exchange.orgs (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, name)
      )`);
    await runner.query(`
      ALTER TABLE exchange.nodes
        ADD CONSTRAINT nodes_ha_group_fk FOREIGN KEY (org, ha_group)
        REFERENCES exchange.ha_groups (org, name) ON DELETE RESTRICT`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE exchange.nodes DROP CONSTRAINT nodes_ha_group_fk');
    await runner.query('DROP TABLE exchange.ha_groups');
  }
}
