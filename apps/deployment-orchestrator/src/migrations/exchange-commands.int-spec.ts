/**
 * The exchange-commands migration keeps a rollout's policies left to remove: up, they become
 * pending remove-policy commands in their order; down, those still pending go back.
 */
import { useTestInfra } from '@careen/testing';
import { type DataSource } from 'typeorm';
import { commandsOf, ORCHESTRATOR_SCHEMA, orchestratorDataSource } from '../testing/orchestrator-database';
import { fixtureRollout } from '../testing/rollout-fixture';
import { InitDeploymentOrchestrator1763769600000 } from './1763769600000-init-deployment-orchestrator';
import { StrategiesRolloutsUpgrades1764400000000 } from './1764400000000-strategies-rollouts-upgrades';
import { ExchangeCommands1764500000000 } from './1764500000000-exchange-commands';

describe('the exchange-commands migration', () => {
  const infra = useTestInfra();
  let dataSource: DataSource | undefined;

  afterAll(() => dataSource?.destroy());

  it("turns a rollout's removals into remove-policy commands, and back", async () => {
    const before = await orchestratorDataSource(infra.databaseUrl, [
      InitDeploymentOrchestrator1763769600000,
      StrategiesRolloutsUpgrades1764400000000,
    ]);
    const record = fixtureRollout();
    await before.query(
      `INSERT INTO ${ORCHESTRATOR_SCHEMA}.rollouts (id, org, strategy, strategy_version, target_version, state,
              phase_timeout_seconds, document, plan, progress, removals, created_by)
       VALUES ($1, 'acme', 'two-step', 1, '2.0.0', 'completed', 60, $2, $3, $4, $5, 'acme/admin')`,
      [
        record.id,
        JSON.stringify(record.document),
        JSON.stringify(record.plan),
        JSON.stringify(record.progress),
        ['rollout-0f1e2d3c-1-prepare', 'rollout-0f1e2d3c-1-deploy'],
      ],
    );
    await before.destroy();

    // Up to this migration only: undoing the last one below must undo this one.
    dataSource = await orchestratorDataSource(infra.databaseUrl, [
      InitDeploymentOrchestrator1763769600000,
      StrategiesRolloutsUpgrades1764400000000,
      ExchangeCommands1764500000000,
    ]);
    expect(await commandsOf(dataSource, `rollout ${record.id}`)).toEqual([
      {
        kind: 'remove-policy',
        policy: 'rollout-0f1e2d3c-1-prepare',
        done: false,
        attempts: 0,
        last_error: null,
      },
      {
        kind: 'remove-policy',
        policy: 'rollout-0f1e2d3c-1-deploy',
        done: false,
        attempts: 0,
        last_error: null,
      },
    ]);
    const columns = async () =>
      (
        await dataSource!.query(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'rollouts'`,
          [ORCHESTRATOR_SCHEMA],
        )
      ).map((row: { column_name: string }) => row.column_name);
    expect(await columns()).not.toContain('removals');

    await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await dataSource.query(`SELECT removals FROM ${ORCHESTRATOR_SCHEMA}.rollouts`)).toEqual([
      { removals: ['rollout-0f1e2d3c-1-prepare', 'rollout-0f1e2d3c-1-deploy'] },
    ]);
    expect(
      await dataSource.query(`SELECT to_regclass('${ORCHESTRATOR_SCHEMA}.exchange_commands') AS t`),
    ).toEqual([{ t: null }]);
  });
});
