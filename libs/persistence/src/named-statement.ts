/**
 * A statement a hot path sends again and again, under a name of its own: each connection then
 * parses and plans it once (a prepared statement of node-postgres) instead of at every call.
 * Planning is most of the work of a short statement: in Postgres's own pgbench on this project's
 * management-status upsert, prepared ran 1.6 times as many per second as sent in full each time.
 *
 * Its result columns are named, never `*`: a plan a replica holds must keep its result's shape
 * when a migration adds a column. A prepared statement lives on its connection, so pooling must
 * be per session (as the outbox relays already need) or keep prepared statements.
 */
import { type QueryConfig } from 'pg';
import { type DataSource, type EntityManager, type EntityTarget, type ObjectLiteral } from 'typeorm';

export class NamedStatement {
  constructor(
    readonly name: string,
    readonly text: string,
  ) {}

  /** Runs it in the manager's transaction, or on a connection of the data source's pool. */
  run<T = unknown>(on: EntityManager | DataSource, values: readonly unknown[]): Promise<T> {
    return on.query(this.query(), [...values]);
  }

  /** The statement as TypeORM's `query` methods take it, for a query runner of one's own. */
  query(): string {
    // TypeORM hands its query to node-postgres as it is, and node-postgres adds the values to a
    // query config that names the statement; toString is what TypeORM's logs and errors show.
    const { name, text } = this;
    return { name, text, toString: () => text } as unknown as string;
  }

  /** As node-postgres takes it, for a client of one's own. */
  config(values: readonly unknown[]): QueryConfig {
    return { name: this.name, text: this.text, values: [...values] };
  }
}

/**
 * The entity's columns as a named statement lists them in place of `*` (`alias."column", …`),
 * for an answer `entityFromRow` makes the entity of.
 */
export function entityColumns(on: DataSource, target: EntityTarget<ObjectLiteral>, alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  return on
    .getMetadata(target)
    .columns.map((column) => `${prefix}"${column.databaseName}"`)
    .join(', ');
}
