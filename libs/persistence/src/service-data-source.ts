/**
 * One TypeORM DataSource per service, pinned to that service's own schema, with its own
 * migrations table inside the schema. Schema sync is never used: migrations own the shape.
 */
import { DataSource, type EntitySchema, type MixedList } from 'typeorm';

export interface ServiceDataSourceOptions {
  url: string;
  /** The service's schema, e.g. `exchange`. No service reads another's schema. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  /** Name shown in pg_stat_activity. */
  applicationName: string;
  poolSize?: number;
  /**
   * How long a query waits for a pooled connection before it fails (node-postgres: "timeout
   * exceeded when trying to connect"); by default it waits for as long as it takes.
   */
  poolWaitMs?: number;
}

export function createServiceDataSource(options: ServiceDataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    applicationName: options.applicationName,
    extra: { max: options.poolSize ?? 10, connectionTimeoutMillis: options.poolWaitMs ?? 0 },
  });
}
