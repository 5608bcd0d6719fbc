/** The maintenance service's schema on the test database, migrated, for the int-specs that need its tables. */
import { createServiceDataSource, runServiceMigrations } from '@careen/persistence';
import { type DataSource } from 'typeorm';
import { MAINTENANCE_SESSION_ENTITIES, MAINTENANCE_SESSION_MIGRATIONS } from './maintenance-session.module';

export async function maintenanceDataSource(url: string, applicationName: string): Promise<DataSource> {
  const dataSource = createServiceDataSource({
    url,
    schema: 'maintenance_session',
    entities: MAINTENANCE_SESSION_ENTITIES,
    migrations: MAINTENANCE_SESSION_MIGRATIONS,
    applicationName,
    poolSize: 4,
  });
  await dataSource.initialize();
  await runServiceMigrations(dataSource);
  return dataSource;
}
