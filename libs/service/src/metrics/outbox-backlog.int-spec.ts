/**
 * The outbox backlog a scrape reports: the events not yet numbered and those numbered and not
 * yet published, with the oldest one's age, read without visiting the published rows the outbox
 * keeps for a day.
 */
import { outboxSchemaUp } from '@careen/persistence';
import { rowsVisited, useTestInfra, withClient } from '@careen/testing';
import { outboxBacklogStatement } from './platform-metrics';

describe('the outbox backlog a scrape reads', () => {
  const infra = useTestInfra();
  const statement = outboxBacklogStatement('backlog_test');

  it('counts the unnumbered and the unpublished, and visits only them', async () => {
    await withClient(infra.databaseUrl, async (client) => {
      await client.query('CREATE SCHEMA backlog_test');
      for (const ddl of outboxSchemaUp('backlog_test')) await client.query(ddl);
      const insert = (count: number, columns: string) =>
        client.query(
          `INSERT INTO backlog_test.outbox (subject, type, payload, created_at, seq, published_at)
           SELECT 's', 't', '{}', ${columns} FROM generate_series(1, ${count}) AS n`,
        );
      await insert(5_000, `now() - interval '1 hour', nextval('backlog_test.outbox_seq'), now()`);
      await insert(2, `now() - interval '90 seconds', nextval('backlog_test.outbox_seq'), NULL`);
      await insert(3, `now() - interval '30 seconds', NULL, NULL`);
      await client.query('ANALYZE backlog_test.outbox');

      const { rows } = await client.query<{ backlog: number; oldest: number }>(statement);
      expect(rows[0]!.backlog).toBe(5);
      expect(rows[0]!.oldest).toBeGreaterThanOrEqual(90);
      expect(rows[0]!.oldest).toBeLessThan(3_600);
      expect(await rowsVisited(client, statement)).toBeLessThan(20);

      await client.query(
        'UPDATE backlog_test.outbox SET published_at = now() WHERE published_at IS NULL AND seq IS NOT NULL',
      );
      await client.query(
        `UPDATE backlog_test.outbox SET seq = nextval('backlog_test.outbox_seq'), published_at = now() WHERE seq IS NULL`,
      );
      const { rows: none } = await client.query<{ backlog: number; oldest: number }>(statement);
      expect(none[0]).toEqual({ backlog: 0, oldest: 0 });
    });
  });
});
