import { eventually, useTestInfra, withClient } from '@careen/testing';
import { LeaderElection } from './leader-election';

interface Replica {
  name: string;
  election: LeaderElection;
}

describe('LeaderElection', () => {
  const infra = useTestInfra();
  const replicas: Replica[] = [];
  /** Who is leading right now, by the replicas' own account; more than one at once is the bug. */
  const leading = new Set<string>();
  let mostAtOnce = 0;
  const terms: string[] = [];

  function replica(name: string): Replica {
    const election = new LeaderElection({
      databaseUrl: infra.databaseUrl,
      key: 'careen:test:controller',
      retryMs: 100,
      lead: async (signal) => {
        leading.add(name);
        terms.push(name);
        mostAtOnce = Math.max(mostAtOnce, leading.size);
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        leading.delete(name);
      },
    });
    const created = { name, election };
    replicas.push(created);
    election.start();
    return created;
  }

  afterAll(async () => {
    await Promise.all(replicas.map((each) => each.election.stop()));
  });

  it('elects exactly one of several replicas', async () => {
    const all = [replica('a'), replica('b'), replica('c')];
    await eventually(() => expect(leading.size).toBe(1));
    expect(all.filter((each) => each.election.isLeader)).toHaveLength(1);
  });

  it('hands over within seconds when the leader stops, never to two at once', async () => {
    const first = replicas.find((each) => each.election.isLeader)!;
    const handedOverFrom = Date.now();
    await first.election.stop();
    await eventually(() => expect(leading.size).toBe(1));
    expect(Date.now() - handedOverFrom).toBeLessThan(5_000);
    expect(leading.has(first.name)).toBe(false);
    expect(mostAtOnce).toBe(1);
  });

  it('hands over when the leader loses its database connection, and the old leader stops leading', async () => {
    const current = replicas.find((each) => each.election.isLeader)!;
    await withClient(infra.databaseUrl, (client) =>
      client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'careen:test:controller' AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)",
      ),
    );
    await eventually(() => {
      expect(current.election.isLeader).toBe(false);
      expect(leading.size).toBe(1);
    });
    expect(mostAtOnce).toBe(1);
    expect(terms.length).toBeGreaterThanOrEqual(3);
  });
});
