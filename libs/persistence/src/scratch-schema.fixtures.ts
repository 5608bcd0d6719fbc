/** For tests: a data source on a new schema of its own, with no entities or migrations. */
import { type DataSource } from 'typeorm';
import { createServiceDataSource } from './service-data-source';

export async function scratchSchema(
  url: string,
  schema: string,
  applicationName: string,
): Promise<DataSource> {
  const dataSource = createServiceDataSource({ url, schema, entities: [], migrations: [], applicationName });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  return dataSource;
}
