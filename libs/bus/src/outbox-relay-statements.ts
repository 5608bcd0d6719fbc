/** The statements the outbox relay sends, named so that its connection plans each once. */
import { NamedStatement } from '@careen/persistence';

export interface RelayStatements {
  /**
   * Numbers the committed rows not numbered yet (`$1` at most), in id order, and answers them;
   * wakes the readers of numbered rows (channel `$2`) at its commit. In sequence order; one row
   * with a null `seq` when nothing was numbered.
   */
  sequence: NamedStatement;
  /** Rows numbered but not yet published (left by a failed publish or a former leader), in order. */
  unpublished: NamedStatement;
  /** Marks the rows with the sequence numbers `$1` published. */
  mark: NamedStatement;
  /** Deletes the rows published more than `$1` seconds ago. */
  prune: NamedStatement;
}

export function relayStatements(schema: string): RelayStatements {
  const table = `"${schema}".outbox`;
  const named = (purpose: string, text: string) => new NamedStatement(`outbox-${purpose}:${schema}`, text);
  return {
    sequence: named(
      'sequence',
      `WITH picked AS (
         SELECT id FROM ${table}
         WHERE seq IS NULL
         ORDER BY id LIMIT $1 FOR UPDATE
       ), numbers AS (
         SELECT nextval('"${schema}".outbox_seq') AS seq FROM picked
       ), numbered AS (
         SELECT i.id, n.seq
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS rank FROM picked) AS i
         JOIN (SELECT seq, row_number() OVER (ORDER BY seq) AS rank FROM numbers) AS n USING (rank)
       ), sequenced AS (
         UPDATE ${table} AS o SET seq = numbered.seq FROM numbered WHERE o.id = numbered.id
         RETURNING o.seq, o.subject, o.type, o.payload, o.headers, o.created_at
       ), announced AS (
         SELECT pg_notify($2, max(seq)::text) FROM sequenced HAVING count(*) > 0
       )
       SELECT s.seq::text AS seq, s.subject, s.type, s.payload, s.headers, s.created_at,
              -- A CTE that no one reads does not run: this makes the NOTIFY happen.
              (SELECT count(*) FROM announced) AS announced
       FROM (SELECT) AS one LEFT JOIN sequenced AS s ON true
       ORDER BY s.seq`,
    ),
    unpublished: named(
      'unpublished',
      // By the column, o.seq: a bare `seq` names the text answered, where '10000' < '9999'.
      `SELECT o.seq::text AS seq, o.subject, o.type, o.payload, o.headers, o.created_at FROM ${table} AS o
       WHERE o.published_at IS NULL AND o.seq IS NOT NULL ORDER BY o.seq LIMIT $1`,
    ),
    mark: named('mark', `UPDATE ${table} SET published_at = clock_timestamp() WHERE seq = ANY($1::bigint[])`),
    prune: named(
      'prune',
      `DELETE FROM ${table}
       WHERE published_at IS NOT NULL AND published_at < clock_timestamp() - make_interval(secs => $1)`,
    ),
  };
}
