/**
 * The writer wakes the relay after the writing transaction commits, by a NOTIFY of its own:
 * never from inside the transaction (that would serialize every writer's commit), never for a
 * transaction that rolled back, and once for many commits that land while a NOTIFY is sent.
 */
import { ExchangeChanged } from '@careen/contracts';
import { eventually, useTestInfra } from '@careen/testing';
import { Client } from 'pg';
import { type DataSource } from 'typeorm';
import { scratchSchema } from '../scratch-schema.fixtures';
import { outboxChannel, outboxSchemaUp } from './outbox-schema.sql';
import { OutboxWriter } from './outbox-writer';

const SCHEMA = 'writer_test';

describe('OutboxWriter', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  let listener: Client;
  const writer = new OutboxWriter(SCHEMA, () => ({ traceparent: '00-trace' }));
  let wakes = 0;

  const change = (id: string) =>
    ({
      org: 'acme',
      resource: 'node',
      resourceId: id,
      operation: 'updated',
      changedAt: new Date().toISOString(),
    }) as const;
  const rows = async () =>
    Number((await dataSource.query(`SELECT count(*)::int AS n FROM "${SCHEMA}".outbox`))[0].n);

  beforeAll(async () => {
    dataSource = await scratchSchema(infra.databaseUrl, SCHEMA, 'outbox-writer-test');
    for (const statement of outboxSchemaUp(SCHEMA)) await dataSource.query(statement);
    listener = new Client({ connectionString: infra.databaseUrl });
    await listener.connect();
    listener.on('notification', () => wakes++);
    // The test database may be dropped under it once the file is done.
    listener.on('error', () => undefined);
    await listener.query(`LISTEN ${outboxChannel(SCHEMA)}`);
  });

  afterAll(async () => {
    await listener.end();
    await dataSource.destroy();
  });

  it('refuses to write outside a transaction', async () => {
    await expect(
      writer.append(dataSource.manager, ExchangeChanged, ['acme', 'node', 'n0'], change('n0')),
    ).rejects.toThrow(/inside the transaction/);
  });

  it('sends no NOTIFY from inside the transaction, and wakes the relay once it has committed', async () => {
    const before = wakes;
    const statements: string[] = [];
    await dataSource.transaction(async (manager) => {
      const query = manager.query.bind(manager);
      jest.spyOn(manager, 'query').mockImplementation((sql: string, parameters?: unknown[]) => {
        statements.push(String(sql));
        return query(sql, parameters);
      });
      await writer.append(manager, ExchangeChanged, ['acme', 'node', 'n1'], change('n1'));
    });
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^INSERT INTO/);
    await eventually(() => expect(wakes - before).toBe(1));
    const [row] = await dataSource.query(`SELECT subject, headers FROM "${SCHEMA}".outbox`);
    expect(row).toEqual({ subject: 'careen.changes.acme.node.n1', headers: { traceparent: '00-trace' } });
  });

  it('writes messages given together in one statement, in their order, with their headers', async () => {
    const before = wakes;
    const statements: string[] = [];
    const ids = Array.from({ length: 12 }, (_, i) => `batch-${i}`);
    await dataSource.transaction(async (manager) => {
      const query = manager.query.bind(manager);
      jest.spyOn(manager, 'query').mockImplementation((sql: string, parameters?: unknown[]) => {
        statements.push(String(sql));
        return query(sql, parameters);
      });
      await writer.appendAll(
        manager,
        ids.map((id, i) =>
          writer.message(ExchangeChanged, ['acme', 'node', id], change(id), {
            headers: { 'ce-seq': String(i) },
          }),
        ),
      );
    });
    expect(statements).toHaveLength(1);
    await eventually(() => expect(wakes - before).toBe(1));
    const written = (await dataSource.query(
      `SELECT subject, payload->>'resourceId' AS node, headers FROM "${SCHEMA}".outbox
        WHERE subject LIKE 'careen.changes.acme.node.batch-%' ORDER BY id`,
    )) as { subject: string; node: string; headers: Record<string, string> }[];
    expect(written.map((row) => row.node)).toEqual(ids);
    expect(written.map((row) => row.headers)).toEqual(
      ids.map((_, i) => ({ traceparent: '00-trace', 'ce-seq': String(i) })),
    );
  });

  it('does not wake the relay for a transaction that rolled back', async () => {
    const before = wakes;
    const written = await rows();
    await expect(
      dataSource.transaction(async (manager) => {
        await writer.append(manager, ExchangeChanged, ['acme', 'node', 'n2'], change('n2'));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // A later commit's wake shows that the rolled-back one sent nothing before it.
    await dataSource.transaction((manager) =>
      writer.append(manager, ExchangeChanged, ['acme', 'node', 'n3'], change('n3')),
    );
    await eventually(() => expect(wakes - before).toBe(1));
    expect(await rows()).toBe(written + 1);
  });

  it('wakes the relay at once for rows a statement wrote and committed on its own', async () => {
    const before = wakes;
    await dataSource.query(
      `INSERT INTO "${SCHEMA}".outbox (subject, type, payload) VALUES ('careen.test', 'careen.test', '{}')`,
    );
    writer.written(dataSource.manager);
    await eventually(() => expect(wakes - before).toBe(1));
  });
  it('wakes the relay after many concurrent commits, with no more NOTIFYs than commits', async () => {
    const before = wakes;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        dataSource.transaction((manager) =>
          writer.append(manager, ExchangeChanged, ['acme', 'node', `m${i}`], change(`m${i}`)),
        ),
      ),
    );
    await eventually(() => expect(wakes - before).toBeGreaterThan(0));
    expect(wakes - before).toBeLessThanOrEqual(20);
  });
});
