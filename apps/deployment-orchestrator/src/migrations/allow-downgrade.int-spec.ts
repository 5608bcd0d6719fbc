/**
 * The allow-downgrade migration: rollouts and upgrades stored before it were never allowed to
 * take a node down; down, the column goes.
 */
import { useTestInfra } from '@careen/testing';
import { type DataSource } from 'typeorm';
import { ORCHESTRATOR_SCHEMA, orchestratorDataSource } from '../testing/orchestrator-database';
import { fixtureRollout } from '../testing/rollout-fixture';
import { InitDeploymentOrchestrator1763769600000 } from './1763769600000-init-deployment-orchestrator';
import { StrategiesRolloutsUpgrades1764400000000 } from './1764400000000-strategies-rollouts-upgrades';
import { ExchangeCommands1764500000000 } from './1764500000000-exchange-commands';

describe('the allow-downgrade migration', () => {
  const infra = useTestInfra();
  let dataSource: DataSource | undefined;

  afterAll(() => dataSource?.destroy());

  it('leaves the rollouts and upgrades stored before it not allowed to go down, and goes back', async () => {
    const before = await orchestratorDataSource(infra.databaseUrl, [
      InitDeploymentOrchestrator1763769600000,
      StrategiesRolloutsUpgrades1764400000000,
      ExchangeCommands1764500000000,
    ]);
    const record = fixtureRollout();
    await before.query(
      `INSERT INTO ${ORCHESTRATOR_SCHEMA}.rollouts (id, org, strategy, strategy_version, target_version, state,
              phase_timeout_seconds, document, plan, progress, created_by)
       VALUES ($1, 'acme', 'two-step', 1, '1.0.0', 'completed', 60, $2, $3, $4, 'acme/admin')`,
      [
        record.id,
        JSON.stringify(record.document),
        JSON.stringify(record.plan),
        JSON.stringify(record.progress),
      ],
    );
    await before.query(
      `INSERT INTO ${ORCHESTRATOR_SCHEMA}.upgrades (id, org, node, from_version, to_version, strategy, state, policy, created_by)
       VALUES ($1, 'acme', 'mon01', '2.0.0', '1.0.0', 'tarball', 'failed', 'upgrade-0f1e2d3c-mon01', 'acme/admin')`,
      [record.id],
    );
    await before.destroy();

    dataSource = await orchestratorDataSource(infra.databaseUrl);
    for (const table of ['rollouts', 'upgrades'])
      expect(await dataSource.query(`SELECT allow_downgrade FROM ${ORCHESTRATOR_SCHEMA}.${table}`)).toEqual([
        { allow_downgrade: false },
      ]);

    await dataSource.undoLastMigration({ transaction: 'each' });
    const columns: { table_name: string }[] = await dataSource.query(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'allow_downgrade'`,
      [ORCHESTRATOR_SCHEMA],
    );
    expect(columns).toEqual([]);
  });
});
