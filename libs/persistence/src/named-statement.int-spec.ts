/**
 * A named statement is prepared once per connection and answers as the same statement sent in
 * full would, through TypeORM and through a client of one's own; its failures keep TypeORM's shape.
 */
import { useTestInfra } from '@careen/testing';
import { Client } from 'pg';
import { QueryFailedError, type DataSource } from 'typeorm';
import { NamedStatement } from './named-statement';
import { scratchSchema } from './scratch-schema.fixtures';

const SCHEMA = 'named_statement_test';

describe('NamedStatement', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  const insert = new NamedStatement(
    'named-statement-test-insert',
    `INSERT INTO "${SCHEMA}".things (id, label) VALUES ($1, $2) RETURNING id, label`,
  );

  beforeAll(async () => {
    dataSource = await scratchSchema(infra.databaseUrl, SCHEMA, 'named-statement-test');
    await dataSource.query(`CREATE TABLE "${SCHEMA}".things (id int PRIMARY KEY, label text NOT NULL)`);
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('is prepared once on its connection and answers each call with its own values', async () => {
    const { answers, prepared } = await dataSource.transaction(async (manager) => {
      const answers = [await insert.run(manager, [1, 'one']), await insert.run(manager, [2, 'two'])];
      const prepared: { statement: string }[] = await manager.query(
        'SELECT statement FROM pg_prepared_statements WHERE name = $1',
        [insert.name],
      );
      return { answers, prepared };
    });

    expect(answers).toEqual([[{ id: 1, label: 'one' }], [{ id: 2, label: 'two' }]]);
    expect(prepared).toEqual([{ statement: insert.text }]);
  });

  it('fails as TypeORM fails, with the driver error and the statement text', async () => {
    await insert.run(dataSource, [10, 'ten']);

    const failure = await insert.run(dataSource, [10, 'again']).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('23505');
    expect(String((failure as QueryFailedError).query)).toBe(insert.text);
  });

  it('runs on a client of its own', async () => {
    const client = new Client({ connectionString: infra.databaseUrl });
    await client.connect();
    try {
      await client.query(insert.config([20, 'twenty']));
      const { rows } = await client.query(insert.config([21, 'twenty-one']));
      const prepared = await client.query('SELECT count(*)::int AS n FROM pg_prepared_statements');

      expect(rows).toEqual([{ id: 21, label: 'twenty-one' }]);
      expect(prepared.rows).toEqual([{ n: 1 }]);
    } finally {
      await client.end();
    }
  });
});
