import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Every status a node wrote for a management policy, and every event of the policy itself,
 * kept after the live status is overwritten and after the policy (or the node) is removed:
 * hence no foreign keys. Read newest first per node and per policy.
 */
export class RolloutHistory1764100150000 implements MigrationInterface {
  name = 'RolloutHistory1764100150000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE exchange.management_history (
        id bigserial PRIMARY KEY,
        org text NOT NULL,
        nmp text NOT NULL,
        node text,
        kind text NOT NULL CHECK (kind IN ('status', 'policy')),
        event text NOT NULL,
        version text,
        from_version text,
        attempt integer,
        detail text,
        actor text,
        at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await runner.query(
      'CREATE INDEX management_history_by_node ON exchange.management_history (org, node, id) WHERE node IS NOT NULL',
    );
    await runner.query(
      'CREATE INDEX management_history_by_policy ON exchange.management_history (org, nmp, id)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE exchange.management_history');
  }
}
