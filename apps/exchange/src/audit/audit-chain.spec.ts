import { chain, firstBreak, GENESIS_HASH, recordHash } from './audit-chain';
import { type AuditEntry } from './audit-entry';

const entry = (n: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  eventId: `event-${n}`,
  org: 'acme',
  at: new Date(Date.UTC(2026, 11, 6, 10, 0, n)).toISOString(),
  actor: 'acme/ada',
  actorKind: 'user',
  via: 'password',
  service: 'exchange',
  action: 'managementPolicy.paused',
  target: 'managementPolicy/web',
  outcome: 'succeeded',
  source: '10.0.0.7',
  requestId: `req-${n}`,
  traceId: null,
  ...overrides,
});

describe('the audit hash chain', () => {
  const records = chain([entry(1), entry(2), entry(3)], { seq: 0, hash: GENESIS_HASH });

  it('numbers records from the head and links each to the hash of the one before', () => {
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(records[0]!.prevHash).toBe(GENESIS_HASH);
    expect(records[1]!.prevHash).toBe(records[0]!.hash);
    expect(records[2]!.hash).toBe(recordHash(records[1]!.hash, records[2]!));
    expect(firstBreak(records, { seq: 0, hash: GENESIS_HASH })).toBeUndefined();
  });

  it('goes on from where an earlier append left it', () => {
    const more = chain([entry(4)], { seq: 3, hash: records[2]!.hash });
    expect(firstBreak([...records, ...more], { seq: 0, hash: GENESIS_HASH })).toBeUndefined();
  });

  it.each([
    ['an edited field', 'actor', 'acme/mallory'],
    ['an edited time', 'at', '2026-12-06T09:00:00.000Z'],
    ['an edited outcome', 'outcome', 'refused'],
  ] as const)('finds %s, naming the record', (_label, field, value) => {
    const tampered = records.map((record) => (record.seq === 2 ? { ...record, [field]: value } : record));
    expect(firstBreak(tampered, { seq: 0, hash: GENESIS_HASH })).toEqual({
      seq: 2,
      eventId: 'event-2',
      problem: 'its fields do not give its hash: it was edited',
    });
  });

  it('finds a removed or reordered record at the one after it', () => {
    const removed = [records[0]!, records[2]!];
    expect(firstBreak(removed, { seq: 0, hash: GENESIS_HASH })).toMatchObject({
      seq: 3,
      problem: 'does not follow record 1: a record before it was removed, added or changed',
    });
    expect(firstBreak([records[1]!, records[0]!], { seq: 0, hash: GENESIS_HASH })).toMatchObject({ seq: 2 });
  });

  it('finds a record whose hash was recomputed after an edit, at the record after it', () => {
    const edited = { ...records[1]!, actor: 'acme/mallory' };
    const rehashed = { ...edited, hash: recordHash(edited.prevHash, edited) };
    expect(firstBreak([records[0]!, rehashed, records[2]!], { seq: 0, hash: GENESIS_HASH })).toMatchObject({
      seq: 3,
    });
  });
});
