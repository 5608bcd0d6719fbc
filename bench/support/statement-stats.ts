/**
 * What each statement cost Postgres over a bench's measured window, from pg_stat_statements:
 * asked for with `CAREEN_BENCH_PG_STATEMENTS=<n>` (the n costliest), for which the bench stack
 * loads the extension. Times are the server's execution time, waits for locks included; calls
 * and rows show which statements a route's budget sends most often.
 */
import { withClient } from '@careen/testing';

/** How many statements to print; 0 when none are asked for. */
export function statementStatsWanted(): number {
  const wanted = Number(process.env.CAREEN_BENCH_PG_STATEMENTS ?? 0);
  return Number.isInteger(wanted) && wanted > 0 ? wanted : 0;
}

interface StatementRow {
  calls: number;
  total_ms: number;
  mean_ms: number;
  rows: number;
  statement: string;
}

export class StatementStats {
  private constructor(private readonly databaseUrl: string) {}

  /** Starts counting now (undefined when not asked for). */
  static async start(databaseUrl: string): Promise<StatementStats | undefined> {
    if (statementStatsWanted() === 0) return undefined;
    await withClient(databaseUrl, async (client) => {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await client.query('SELECT pg_stat_statements_reset()');
    });
    return new StatementStats(databaseUrl);
  }

  /** The costliest statements since the start, by execution time, as rows of a printed table. */
  async top(): Promise<Record<string, string | number>[]> {
    const { rows } = await withClient(this.databaseUrl, (client) =>
      client.query<StatementRow>(
        `SELECT calls::int, total_exec_time::float AS total_ms, mean_exec_time::float AS mean_ms, rows::int,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS statement
           FROM pg_stat_statements
          WHERE query NOT LIKE '%pg_stat_statements%'
          ORDER BY total_exec_time DESC LIMIT $1`,
        [statementStatsWanted()],
      ),
    );
    return rows.map((row) => ({
      calls: row.calls,
      'total ms': row.total_ms,
      'mean ms': row.mean_ms,
      rows: row.rows,
      statement: row.statement,
    }));
  }
}
