/**
 * Brings a service's schema up to date. Replicas starting together serialize on an advisory
 * lock, so each migration runs once; the schema is created first because the migrations
 * table lives inside it.
 */
import { type DataSource } from 'typeorm';

export async function runServiceMigrations(dataSource: DataSource): Promise<string[]> {
  const schema = schemaOf(dataSource);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`careen:migrate:${schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
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
