/**
 * The rows a statement's plan visits, as Postgres ran it: for each scan, the rows it answered
 * and those its filter dropped, times its loops. A test holds a statement that should read only
 * what it answers to this, against a table that also keeps what it should skip.
 */
import { type Client } from 'pg';

interface PlanNode {
  'Node Type': string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

export async function rowsVisited(
  client: Client,
  statement: string,
  params: unknown[] = [],
): Promise<number> {
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`,
    params,
  );
  const visited = (node: PlanNode): number => {
    const own = node['Node Type'].endsWith('Scan')
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
    return own + (node.Plans ?? []).reduce((sum, child) => sum + visited(child), 0);
  };
  return visited(rows[0]!['QUERY PLAN'][0].Plan);
}
