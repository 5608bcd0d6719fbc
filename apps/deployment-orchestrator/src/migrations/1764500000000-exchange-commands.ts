import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The exchange commands of rollouts and upgrades: stored by the step that decides them, carried
 * out after it commits, kept once done for the next step to read. A rollout's policies left to
 * remove (`removals`) become such commands; going down, the removals still to do go back there
 * and the other commands are dropped (the driver of then does the rest itself).
 */
export class ExchangeCommands1764500000000 implements MigrationInterface {
  name = 'ExchangeCommands1764500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE deployment_orchestrator.exchange_commands (
        id bigserial PRIMARY KEY,
        holder text NOT NULL,
        policy text NOT NULL,
        command jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        done_at timestamptz,
        result jsonb,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`);
    await runner.query(
      `CREATE INDEX exchange_commands_pending ON deployment_orchestrator.exchange_commands (holder, id) WHERE done_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX exchange_commands_by_policy ON deployment_orchestrator.exchange_commands (holder, policy, id)`,
    );
    await runner.query(`
      INSERT INTO deployment_orchestrator.exchange_commands (holder, policy, command)
      SELECT 'rollout ' || r.id, removal.name,
             jsonb_build_object('kind', 'remove-policy', 'org', r.org, 'name', removal.name)
        FROM deployment_orchestrator.rollouts r,
             unnest(r.removals) WITH ORDINALITY AS removal(name, n)
       ORDER BY r.created_at, removal.n`);
    await runner.query(`ALTER TABLE deployment_orchestrator.rollouts DROP COLUMN removals`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE deployment_orchestrator.rollouts ADD COLUMN removals text[] NOT NULL DEFAULT '{}'`,
    );
    await runner.query(`
      UPDATE deployment_orchestrator.rollouts r SET removals = pending.names
        FROM (SELECT holder, array_agg(policy ORDER BY id) AS names
                FROM deployment_orchestrator.exchange_commands
               WHERE done_at IS NULL AND command->>'kind' = 'remove-policy' AND holder LIKE 'rollout %'
               GROUP BY holder) pending
       WHERE pending.holder = 'rollout ' || r.id`);
    await runner.query(`DROP TABLE deployment_orchestrator.exchange_commands`);
  }
}
