import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The agbot's copy of the exchange resources it decides on, kept from CAREEN_CHANGES and a full
 * resync at start. `change_id` is the exchange change that last wrote the row, so an older
 * redelivered change never overwrites a newer state.
 */
export class ExchangeMirror1764000000000 implements MigrationInterface {
  name = 'ExchangeMirror1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE agbot.nodes (
        org text NOT NULL,
        id text NOT NULL,
        ha_group text,
        data jsonb NOT NULL,
        change_id bigint NOT NULL,
        PRIMARY KEY (org, id)
      )`);
    await runner.query(
      'CREATE INDEX nodes_ha_group_idx ON agbot.nodes (org, ha_group) WHERE ha_group IS NOT NULL',
    );
    await runner.query(`
      CREATE TABLE agbot.mirrored_resources (
        org text NOT NULL,
        resource text NOT NULL,
        id text NOT NULL,
        data jsonb NOT NULL,
        change_id bigint NOT NULL,
        PRIMARY KEY (org, resource, id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE agbot.mirrored_resources');
    await runner.query('DROP TABLE agbot.nodes');
  }
}
