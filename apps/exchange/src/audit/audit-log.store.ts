/**
 * The audit trail in Postgres: records appended per org under a lock on the org's head, chained
 * by hash, each once (by event id); read back by filter and page; verified from the anchor to
 * the head; handed to the exporter from the last one exported; pruned past retention.
 */
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { chain, firstBreak, GENESIS_HASH, type ChainBreak, type ChainedRecord } from './audit-chain';
import { type AuditEntry } from './audit-entry';

/** Each stored column and the record's field it holds, in the table's order. */
const FIELDS = [
  ['org', 'org', 'text'],
  ['seq', 'seq', 'bigint'],
  ['event_id', 'eventId', 'text'],
  ['at', 'at', 'timestamptz'],
  ['actor', 'actor', 'text'],
  ['actor_kind', 'actorKind', 'text'],
  ['via', 'via', 'text'],
  ['service', 'service', 'text'],
  ['action', 'action', 'text'],
  ['target', 'target', 'text'],
  ['outcome', 'outcome', 'text'],
  ['source', 'source', 'text'],
  ['request_id', 'requestId', 'text'],
  ['trace_id', 'traceId', 'text'],
  ['prev_hash', 'prevHash', 'text'],
  ['hash', 'hash', 'text'],
] as const satisfies readonly (readonly [string, keyof ChainedRecord, string])[];

const COLUMNS = FIELDS.map(([column]) => column).join(', ');
/** `unnest($1::text[], …)`: one array parameter per column, as `columnsOf` gives them. */
const UNNEST = `unnest(${FIELDS.map(([, , type], index) => `$${index + 1}::${type}[]`).join(', ')})`;

type Row = Record<(typeof FIELDS)[number][0], unknown>;

/**
 * The records after each org's last exported one, at most `$1`, each org's in order. Each org's
 * are read from its own place in the key, so a round reads what it answers, however long the
 * trail already exported: joined whole, it read every record the table kept.
 */
export const UNEXPORTED_RECORDS = `
  SELECT l.*
    FROM exchange.audit_heads h
   CROSS JOIN LATERAL (
         SELECT * FROM exchange.audit_log l
          WHERE l.org = h.org AND l.seq > h.exported_seq
          ORDER BY l.seq LIMIT $1) AS l
   WHERE h.seq > h.exported_seq
   ORDER BY l.org, l.seq LIMIT $1`;

export interface AuditQuery {
  since?: Date;
  until?: Date;
  actor?: string;
  target?: string;
  action?: string;
  /** Oldest first (the default), or newest first. */
  order?: 'oldest' | 'newest';
  /** The `next` of the previous page: records after it in the order asked for. */
  after?: number;
  limit: number;
}

export interface Verification {
  org: string;
  /** Records checked, from the anchor to the head. */
  checked: number;
  head: { seq: number; hash: string };
  anchor: { seq: number; hash: string };
  broken: ChainBreak | null;
}

/** Records read at once while verifying. */
const VERIFY_CHUNK = 5_000;

@Injectable()
export class AuditLogStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Appends the entries not recorded yet, each org's in the order given; answers how many. */
  append(entries: readonly AuditEntry[]): Promise<number> {
    if (entries.length === 0) return Promise.resolve(0);
    const byOrg = new Map<string, AuditEntry[]>();
    for (const entry of entries) {
      const ofOrg = byOrg.get(entry.org);
      if (ofOrg) ofOrg.push(entry);
      else byOrg.set(entry.org, [entry]);
    }
    return this.dataSource.transaction(async (manager) => {
      let stored = 0;
      // One order for every appender, so two never wait on each other's heads.
      for (const org of [...byOrg.keys()].sort())
        stored += await this.appendToOrg(manager, org, byOrg.get(org)!);
      return stored;
    });
  }

  private async appendToOrg(manager: EntityManager, org: string, entries: AuditEntry[]): Promise<number> {
    // Made on the org's first record; locked by every append.
    const [head] = (await manager.query(
      `INSERT INTO exchange.audit_heads (org, hash, anchor_hash) VALUES ($1, $2, $2)
       ON CONFLICT (org) DO UPDATE SET org = EXCLUDED.org RETURNING seq, hash`,
      [org, GENESIS_HASH],
    )) as { seq: string; hash: string }[];
    const known = new Set(
      (
        (await manager.query('SELECT event_id FROM exchange.audit_log WHERE event_id = ANY($1)', [
          entries.map((entry) => entry.eventId),
        ])) as { event_id: string }[]
      ).map((row) => row.event_id),
    );
    const fresh = entries.filter((entry) => !known.has(entry.eventId) && known.add(entry.eventId));
    if (fresh.length === 0) return 0;
    const records = chain(fresh, { seq: Number(head!.seq), hash: head!.hash });
    const last = records.at(-1)!;
    const after = FIELDS.length;
    await manager.query(
      `WITH appended AS (INSERT INTO exchange.audit_log (${COLUMNS}) SELECT * FROM ${UNNEST} RETURNING seq)
       UPDATE exchange.audit_heads SET seq = $${after + 1}, hash = $${after + 2} WHERE org = $${after + 3}`,
      [...columnsOf(records), last.seq, last.hash, org],
    );
    return records.length;
  }

  /** Records not yet published on the bus, each org's in order, at most `limit`. */
  async unexported(limit: number): Promise<ChainedRecord[]> {
    const rows = (await this.dataSource.query(UNEXPORTED_RECORDS, [limit])) as Row[];
    return rows.map(recordOf);
  }

  /** Notes that the org's records up to `seq` are published. */
  async exported(org: string, seq: number): Promise<void> {
    await this.dataSource.query(
      'UPDATE exchange.audit_heads SET exported_seq = greatest(exported_seq, $2) WHERE org = $1',
      [org, seq],
    );
  }

  async list(
    org: string,
    query: AuditQuery,
  ): Promise<{ items: ChainedRecord[]; total: number; next: number | null }> {
    const conditions = ['org = $1'];
    const params: unknown[] = [org];
    const where = (condition: string, value: unknown) => {
      params.push(value);
      conditions.push(condition.replace('?', `$${params.length}`));
    };
    if (query.since) where('at >= ?', query.since);
    if (query.until) where('at < ?', query.until);
    if (query.actor) where('actor = ?', query.actor);
    if (query.target) where('target = ?', query.target);
    if (query.action) where('action = ?', query.action);
    const filter = conditions.join(' AND ');
    const [{ total }] = (await this.dataSource.query(
      `SELECT count(*)::int AS total FROM exchange.audit_log WHERE ${filter}`,
      params,
    )) as [{ total: number }];
    const newest = query.order === 'newest';
    if (query.after !== undefined) where(newest ? 'seq < ?' : 'seq > ?', query.after);
    params.push(query.limit + 1);
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM exchange.audit_log WHERE ${conditions.join(' AND ')}
        ORDER BY seq ${newest ? 'DESC' : 'ASC'} LIMIT $${params.length}`,
      params,
    )) as Row[];
    const items = rows.slice(0, query.limit).map(recordOf);
    return { items, total, next: rows.length > query.limit ? items.at(-1)!.seq : null };
  }

  /** Recomputes the org's chain from its anchor to its head, and says where it first breaks. */
  async verify(org: string): Promise<Verification> {
    const [head] = (await this.dataSource.query(
      'SELECT seq, hash, anchor_seq, anchor_hash FROM exchange.audit_heads WHERE org = $1',
      [org],
    )) as { seq: string; hash: string; anchor_seq: string; anchor_hash: string }[];
    const anchor = head
      ? { seq: Number(head.anchor_seq), hash: head.anchor_hash }
      : { seq: 0, hash: GENESIS_HASH };
    const end = head ? { seq: Number(head.seq), hash: head.hash } : anchor;
    let checked = 0;
    let last = anchor;
    for (;;) {
      const records = (
        (await this.dataSource.query(
          `SELECT ${COLUMNS} FROM exchange.audit_log WHERE org = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
          [org, last.seq, VERIFY_CHUNK],
        )) as Row[]
      ).map(recordOf);
      const broken = firstBreak(records, last);
      if (broken)
        return {
          org,
          checked: checked + records.findIndex((record) => record.seq === broken.seq),
          head: end,
          anchor,
          broken,
        };
      checked += records.length;
      const newest = records.at(-1);
      if (newest) last = { seq: newest.seq, hash: newest.hash };
      if (records.length < VERIFY_CHUNK) break;
    }
    const broken =
      last.seq !== end.seq || last.hash !== end.hash
        ? {
            seq: last.seq + 1,
            eventId: '',
            problem: `the trail ends at record ${last.seq} but its head is record ${end.seq}: records at its end were removed`,
          }
        : null;
    return { org, checked, head: end, anchor, broken };
  }

  /** Removes every org's records older than `before`; verification then starts after them. */
  async prune(before: Date): Promise<number> {
    // Each org's oldest record by the (org, at) index: no scan of the whole trail.
    const orgs = (await this.dataSource.query(
      `SELECT h.org FROM exchange.audit_heads h
        WHERE EXISTS (SELECT 1 FROM exchange.audit_log l WHERE l.org = h.org AND l.at < $1)`,
      [before],
    )) as { org: string }[];
    let removed = 0;
    for (const { org } of orgs)
      removed += await this.dataSource.transaction(async (manager) => {
        await manager.query('SELECT 1 FROM exchange.audit_heads WHERE org = $1 FOR UPDATE', [org]);
        const [last] = (await manager.query(
          `SELECT seq, hash FROM exchange.audit_log WHERE org = $1 AND at < $2 ORDER BY seq DESC LIMIT 1`,
          [org, before],
        )) as { seq: string; hash: string }[];
        if (!last) return 0;
        const [, count] = (await manager.query(
          'DELETE FROM exchange.audit_log WHERE org = $1 AND seq <= $2',
          [org, last.seq],
        )) as [unknown, number];
        await manager.query(
          'UPDATE exchange.audit_heads SET anchor_seq = $2, anchor_hash = $3 WHERE org = $1',
          [org, last.seq, last.hash],
        );
        return count;
      });
    return removed;
  }
}

function columnsOf(records: readonly ChainedRecord[]): unknown[][] {
  return FIELDS.map(([, field]) => records.map((record) => record[field]));
}

function recordOf(row: Row): ChainedRecord {
  const record = Object.fromEntries(FIELDS.map(([column, field]) => [field, row[column]]));
  return { ...record, seq: Number(row.seq), at: (row.at as Date).toISOString() } as ChainedRecord;
}
