/**
 * Reads the exchange's change log: the outbox rows the relay has numbered in commit order.
 * Rows are pruned once published and past retention, oldest first, so the kept ones are
 * always the newest stretch of ids.
 */
import { NamedStatement } from '@careen/persistence';
import { Injectable } from '@nestjs/common';
import { type Client } from 'pg';
import { DataSource } from 'typeorm';
import { type ChangeRecord, GLOBAL_RESOURCES } from './change-record';
import { NODE_OWN_RESOURCES, ORG_WIDE_FOR_NODES } from './change-visibility';

interface LogRow {
  seq: string;
  payload: Omit<ChangeRecord, 'id'>;
}

/** Changes after $1 ($2 at most), of org $3 and the global ones ($4), or of every org when $3 is null. */
const CHANGES_AFTER = new NamedStatement(
  'changes-after',
  `SELECT o.seq::text AS seq, o.payload FROM exchange.outbox AS o
   WHERE o.seq > $1 AND ($3::text IS NULL OR o.payload->>'org' = $3 OR o.payload->>'resource' = ANY($4))
   ORDER BY o.seq LIMIT $2`,
);

/** Changes after $1 ($2 at most) node $7 of org $4 may see (see change-visibility.ts). */
const CHANGES_VISIBLE_TO_NODE = new NamedStatement(
  'changes-visible-to-node',
  `SELECT o.seq::text AS seq, o.payload FROM exchange.outbox AS o
   WHERE o.seq > $1 AND (
     o.payload->>'resource' = ANY($3)
     OR (o.payload->>'org' = $4 AND (
       o.payload->>'resource' = ANY($5)
       OR (o.payload->>'resource' = ANY($6) AND o.payload->>'resourceId' = $7))))
   ORDER BY o.seq LIMIT $2`,
);

// Ordered by the column, `o.seq`: a bare `seq` would name the text the rows answer, and '10000'
// sorts before '9999' (a page across such an id came in the wrong order, and was read twice).
function toRecord(row: LogRow): ChangeRecord {
  return { ...row.payload, id: Number(row.seq) };
}

@Injectable()
export class ChangeLogRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Changes after `since`, in id order; `org` narrows to one org's changes and the global ones.
   * Read on `connection` when given (one of the caller's own), else on one of the pool's.
   */
  async after(since: number, limit: number, org?: string, connection?: Client): Promise<ChangeRecord[]> {
    const parameters = [since, limit, org ?? null, GLOBAL_RESOURCES];
    const rows = connection
      ? (await connection.query<LogRow>(CHANGES_AFTER.config(parameters))).rows
      : await CHANGES_AFTER.run<LogRow[]>(this.dataSource, parameters);
    return rows.map(toRecord);
  }

  /**
   * The changes after `since` that a node may see (as `isVisibleTo` judges), in id order,
   * filtered by Postgres: a node far behind does not page through everything its fleet reported.
   */
  async visibleToNode(since: number, limit: number, org: string, node: string): Promise<ChangeRecord[]> {
    const rows = await CHANGES_VISIBLE_TO_NODE.run<LogRow[]>(this.dataSource, [
      since,
      limit,
      GLOBAL_RESOURCES,
      org,
      ORG_WIDE_FOR_NODES,
      NODE_OWN_RESOURCES,
      node,
    ]);
    return rows.map(toRecord);
  }

  /**
   * The highest id handed out so far (0 before the first). When retention has pruned every row,
   * that is the sequence's last value, not 0: a reader behind it may have missed pruned changes.
   */
  async latestId(): Promise<number> {
    const [row] = await this.dataSource.query<{ latest: string | null }[]>(
      `SELECT coalesce(
         (SELECT max(seq) FROM exchange.outbox),
         (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM exchange.outbox_seq)
       )::text AS latest`,
    );
    return Number(row?.latest ?? 0);
  }

  /** Whether changes after `since` have been pruned, and if so the id to resync from. */
  async prunedAfter(since: number): Promise<number | undefined> {
    const [row] = await this.dataSource.query<{ oldest: string | null; issued: string }[]>(
      `SELECT (SELECT min(seq) FROM exchange.outbox WHERE seq IS NOT NULL)::text AS oldest,
              (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM exchange.outbox_seq)::text AS issued`,
    );
    const issued = Number(row?.issued ?? 0);
    const oldest = row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest);
    const pruned = oldest === undefined ? since < issued : since < oldest - 1;
    return pruned ? issued : undefined;
  }
}
