/**
 * Brings a service's schema up to date. Replicas starting together serialize on an advisory
 * lock, so each migration runs once; the schema is created first because the migrations
 * table lives inside it. The migrations run on the connection that holds the lock: a service
 * whose pool is a single connection has no other to give them.
 */
import { type DataSource, MigrationExecutor } from 'typeorm';

export async function runServiceMigrations(dataSource: DataSource): Promise<string[]> {
  const schema = schemaOf(dataSource);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`careen:migrate:${schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    const applied = await executor.executePendingMigrations();
    return applied.map((migration) => migration.name);
  } finally {
    await runner
      .query('SELECT pg_advisory_unlock(hashtext($1))', [`careen:migrate:${schema}`])
      .catch(() => undefined);
    await runner.release();
  }
}

export function schemaOf(dataSource: DataSource): string {
  const schema = (dataSource.options as { schema?: string }).schema;
  if (!schema) throw new Error('a service DataSource must name its schema');
  return schema;
}
