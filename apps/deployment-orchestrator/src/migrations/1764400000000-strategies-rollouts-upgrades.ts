import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Strategies (every version kept: a rollout keeps the one it started with), rollouts with their
 * plan and progress, the nodes each rollout or single-node upgrade holds (a node is in at most
 * one at a time) and the history of single-node upgrades, one row per attempt.
 */
export class StrategiesRolloutsUpgrades1764400000000 implements MigrationInterface {
  name = 'StrategiesRolloutsUpgrades1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE deployment_orchestrator.strategies (
        org text NOT NULL,
        name text NOT NULL,
        version integer NOT NULL,
        document jsonb NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org, name, version)
      )`);
    await runner.query(`
      CREATE TABLE deployment_orchestrator.rollouts (
        id uuid PRIMARY KEY,
        org text NOT NULL,
        strategy text NOT NULL,
        strategy_version integer NOT NULL,
        target_version text NOT NULL,
        state text NOT NULL,
        reason text,
        phase_timeout_seconds integer NOT NULL,
        document jsonb NOT NULL,
        plan jsonb NOT NULL,
        progress jsonb NOT NULL,
        removals text[] NOT NULL DEFAULT '{}',
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await runner.query(`CREATE INDEX rollouts_by_org ON deployment_orchestrator.rollouts (org, created_at)`);
    await runner.query(
      `CREATE INDEX rollouts_unfinished ON deployment_orchestrator.rollouts (created_at) WHERE finished_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE deployment_orchestrator.node_claims (
        org text NOT NULL,
        node text NOT NULL,
        holder text NOT NULL,
        PRIMARY KEY (org, node)
      )`);
    await runner.query(`CREATE INDEX node_claims_by_holder ON deployment_orchestrator.node_claims (holder)`);
    await runner.query(`
      CREATE TABLE deployment_orchestrator.upgrades (
        id uuid PRIMARY KEY,
        org text NOT NULL,
        node text NOT NULL,
        from_version text,
        to_version text NOT NULL,
        strategy text NOT NULL,
        location text,
        state text NOT NULL,
        status text,
        error text,
        policy text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz,
        policy_removed_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX upgrades_by_node ON deployment_orchestrator.upgrades (org, node, created_at)`,
    );
    await runner.query(
      `CREATE INDEX upgrades_unfinished ON deployment_orchestrator.upgrades (created_at) WHERE policy_removed_at IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['upgrades', 'node_claims', 'rollouts', 'strategies'])
      await runner.query(`DROP TABLE deployment_orchestrator.${table}`);
  }
}
