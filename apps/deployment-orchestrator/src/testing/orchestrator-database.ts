/** The orchestrator's schema on a test database, and what tests read of its exchange commands. */
import { createServiceDataSource, runServiceMigrations } from '@careen/persistence';
import { type DataSource } from 'typeorm';
import {
  DEPLOYMENT_ORCHESTRATOR_ENTITIES,
  DEPLOYMENT_ORCHESTRATOR_MIGRATIONS,
} from '../deployment-orchestrator.module';

export const ORCHESTRATOR_SCHEMA = 'deployment_orchestrator';

/** A data source on `url` with the orchestrator's migrations run (or only `migrations`, when given). */
export async function orchestratorDataSource(
  url: string,
  migrations: readonly (new () => object)[] = DEPLOYMENT_ORCHESTRATOR_MIGRATIONS,
): Promise<DataSource> {
  const dataSource = createServiceDataSource({
    url,
    schema: ORCHESTRATOR_SCHEMA,
    entities: DEPLOYMENT_ORCHESTRATOR_ENTITIES,
    migrations: [...migrations],
    applicationName: 'deployment-orchestrator-test',
  });
  await dataSource.initialize();
  await runServiceMigrations(dataSource);
  return dataSource;
}

export interface StoredCommand {
  kind: string;
  policy: string;
  done: boolean;
  attempts: number;
  last_error: string | null;
}

/** The holder's exchange commands, in the order they were given. */
export function commandsOf(dataSource: DataSource, holder: string): Promise<StoredCommand[]> {
  return dataSource.query(
    `SELECT command->>'kind' AS kind, policy, done_at IS NOT NULL AS done, attempts, last_error
       FROM ${ORCHESTRATOR_SCHEMA}.exchange_commands WHERE holder = $1 ORDER BY id`,
    [holder],
  );
}
