/**
 * The hash chain that makes an org's trail tamper-evident: each record's hash covers its fields
 * and the hash of the record before it, so changing, removing or reordering a stored record
 * breaks every hash from there on. Pure; the store keeps the chain, verify reads it back.
 */
import { createHash } from 'node:crypto';
import { type AuditEntry } from './audit-entry';

/** Where every org's chain starts. */
export const GENESIS_HASH = '0'.repeat(64);

export interface ChainedRecord extends AuditEntry {
  seq: number;
  prevHash: string;
  hash: string;
}

/** The fields a hash covers, in a fixed order. */
function canonical(record: AuditEntry & { seq: number }): string {
  return JSON.stringify([
    record.seq,
    record.org,
    record.at,
    record.actor,
    record.actorKind,
    record.via,
    record.service,
    record.action,
    record.target,
    record.outcome,
    record.source,
    record.requestId,
    record.traceId,
    record.eventId,
  ]);
}

export function recordHash(prevHash: string, record: AuditEntry & { seq: number }): string {
  return createHash('sha256').update(prevHash).update('\n').update(canonical(record)).digest('hex');
}

/** Chains `entries` after the record `seq`, whose hash is `hash`. */
export function chain(entries: readonly AuditEntry[], after: { seq: number; hash: string }): ChainedRecord[] {
  let { seq, hash } = after;
  return entries.map((entry) => {
    seq += 1;
    const prevHash = hash;
    hash = recordHash(prevHash, { ...entry, seq });
    return { ...entry, seq, prevHash, hash };
  });
}

export interface ChainBreak {
  seq: number;
  eventId: string;
  problem: string;
}

/**
 * The first place where `records` (in order) do not chain: a record whose fields no longer give
 * its hash (edited), or that does not follow the one before it (removed, reordered, inserted).
 */
export function firstBreak(
  records: readonly ChainedRecord[],
  after: { seq: number; hash: string },
): ChainBreak | undefined {
  let expected = after;
  for (const record of records) {
    if (record.seq !== expected.seq + 1 || record.prevHash !== expected.hash)
      return {
        seq: record.seq,
        eventId: record.eventId,
        problem: `does not follow record ${expected.seq}: a record before it was removed, added or changed`,
      };
    if (recordHash(record.prevHash, record) !== record.hash)
      return {
        seq: record.seq,
        eventId: record.eventId,
        problem: 'its fields do not give its hash: it was edited',
      };
    expected = record;
  }
  return undefined;
}
