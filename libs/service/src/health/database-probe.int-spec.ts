/**
 * Readiness's database probe keeps one connection of its own: a connection the server ends is
 * opened afresh by a later check, and a server that cannot be reached fails the check.
 */
import { eventually, useTestInfra, withClient } from '@careen/testing';
import { DatabaseProbe } from './database-probe';

describe('DatabaseProbe', () => {
  const infra = useTestInfra();

  /** The server's process ids of the probe's connections now open. */
  const backends = (service: string) =>
    withClient(infra.databaseUrl, async (client) =>
      (
        await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
          `${service}-readiness`,
        ])
      ).rows.map((row) => row.pid),
    );

  it('checks on one connection, and opens a new one after the server ended it', async () => {
    const probe = new DatabaseProbe(infra.databaseUrl, 'probe-test');
    try {
      await probe.check();
      await probe.check();
      const [first, ...others] = await backends('probe-test');
      expect(others).toEqual([]);

      await withClient(infra.databaseUrl, (client) =>
        client.query('SELECT pg_terminate_backend($1)', [first]),
      );
      // The check right after may still meet the ended connection, and fail; a later one may not.
      await eventually(async () => {
        await probe.check();
        const now = await backends('probe-test');
        expect(now).toHaveLength(1);
        expect(now).not.toContain(first);
      });
    } finally {
      await probe.close();
    }
    // The server lets the connection go once it has read the client's goodbye.
    await eventually(async () => expect(await backends('probe-test')).toEqual([]));
  });

  it('fails the check when the server cannot be reached', async () => {
    // Nothing listens on port 1, and no unprivileged process can.
    const probe = new DatabaseProbe('postgres://nobody@127.0.0.1:1/none', 'probe-down');
    try {
      await expect(probe.check()).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await probe.close();
    }
  });
});
