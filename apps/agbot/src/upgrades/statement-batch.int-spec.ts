/**
 * A statement batch on a connection of its own prepares each statement once per connection and
 * sends its values as literals; a failed batch leaves the connection's statements usable; inside
 * a caller's transaction the same statements run as named ones with bound values.
 */
import { createServiceDataSource } from '@careen/persistence';
import { useTestInfra } from '@careen/testing';
import { type DataSource } from 'typeorm';
import { BatchStatement, withStatementBatch } from './statement-batch';

const SCHEMA = 'statement_batch_test';

describe('withStatementBatch', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  const insert = new BatchStatement(
    'statement-batch-test-insert',
    `INSERT INTO "${SCHEMA}".things (id, label, at) VALUES ($1, $2, $3) RETURNING id, label, at`,
  );
  const prepared = new BatchStatement(
    'statement-batch-test-prepared',
    "SELECT name FROM pg_prepared_statements WHERE name LIKE 'batch:statement-batch-test%' ORDER BY name",
  );

  beforeAll(async () => {
    // One connection, so that every batch runs on the same one.
    dataSource = createServiceDataSource({
      url: infra.databaseUrl,
      schema: SCHEMA,
      entities: [],
      migrations: [],
      applicationName: 'statement-batch-test',
      poolSize: 1,
    });
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${SCHEMA}"`);
    await dataSource.query(
      `CREATE TABLE "${SCHEMA}".things (id int PRIMARY KEY, label text NOT NULL, at timestamptz)`,
    );
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('prepares each statement once on its connection and answers every call with its own values', async () => {
    const at = new Date('2026-11-29T08:00:00.123Z');
    const label = "it's; DROP TABLE things; --";

    const first = await withStatementBatch(dataSource.manager, (batch) =>
      batch.run(['BEGIN', insert.with(1, label, at), insert.with(2, 'two', null), 'COMMIT']),
    );
    const second = await withStatementBatch(dataSource.manager, (batch) =>
      batch.run([insert.with(3, 'three', at), prepared.with()]),
    );

    expect(first).toEqual([[], [{ id: 1, label, at }], [{ id: 2, label: 'two', at: null }], []]);
    expect(second).toEqual([
      [{ id: 3, label: 'three', at }],
      [{ name: 'batch:statement-batch-test-insert' }, { name: 'batch:statement-batch-test-prepared' }],
    ]);
  });

  it('leaves the connection able to run its statements after a batch fails', async () => {
    // New to the connection: the failing batch is the first to run it.
    const insertFirst = new BatchStatement('statement-batch-test-first-in-failure', insert.text);
    const failure = await withStatementBatch(dataSource.manager, (batch) =>
      batch.run(['BEGIN', insertFirst.with(10, 'ten', null), insertFirst.with(10, 'again', null), 'COMMIT']),
    ).catch((error: unknown) => error);

    const after = await withStatementBatch(dataSource.manager, (batch) =>
      batch.run([insertFirst.with(11, 'eleven', null)]),
    );

    expect((failure as { code?: string }).code).toBe('23505');
    expect(after).toEqual([[{ id: 11, label: 'eleven', at: null }]]);
    // The failed batch's transaction was rolled back: its first row is not there either.
    expect(await dataSource.query(`SELECT id FROM "${SCHEMA}".things WHERE id = 10`)).toEqual([]);
  });

  it("runs the statements as named ones with bound values inside a caller's transaction", async () => {
    const { ownsTransaction, rows, named } = await dataSource.transaction(async (manager) => {
      const answer = await withStatementBatch(manager, async (batch) => ({
        ownsTransaction: batch.ownsTransaction,
        rows: await batch.run([insert.with(20, 'twenty', null), insert.with(21, 'twenty-one', null)]),
      }));
      const named: { name: string }[] = await manager.query(
        'SELECT name FROM pg_prepared_statements WHERE name = $1',
        [insert.name],
      );
      return { ...answer, named };
    });

    expect(ownsTransaction).toBe(false);
    expect(rows).toEqual([
      [{ id: 20, label: 'twenty', at: null }],
      [{ id: 21, label: 'twenty-one', at: null }],
    ]);
    expect(named).toEqual([{ name: 'statement-batch-test-insert' }]);
  });
});
