/** Stream names and the subject space each one owns. Renaming one needs a migration plan. */
const DAY_MS = 86_400_000;
const MIB = 1024 * 1024;

/**
 * Each stream's limits are the defaults it is created with: oldest messages go first once a
 * stream is older or larger than this. An operator may change them on the server (`nats stream
 * edit`); services never undo that, and only fill in a limit a stream does not have.
 */
export const STREAMS = {
  /**
   * Committed exchange changes. Its consumers (the agbot's mirror) resync from the exchange
   * when they are further behind than the stream holds, and agents read the feed from
   * Postgres, not from here: a week is plenty.
   */
  changes: {
    name: 'CAREEN_CHANGES',
    subjects: ['careen.changes.>'],
    maxAgeMs: 7 * DAY_MS,
    maxBytes: 1024 * MIB,
  },
  /**
   * Maintenance events and replies. A VNF manager's durable consumer may be away for days, and
   * a session lasts as long as its hosts take: a month.
   */
  maintenance: {
    name: 'CAREEN_MAINT',
    subjects: ['careen.maint.>'],
    maxAgeMs: 30 * DAY_MS,
    maxBytes: 1024 * MIB,
  },
  /** Dead letters wait for an operator to look: a month. */
  deadLetters: { name: 'CAREEN_DLQ', subjects: ['careen.dlq.>'], maxAgeMs: 30 * DAY_MS, maxBytes: 256 * MIB },
  /**
   * HA-group grants and releases, for replicas waking waiting requests and for watchers; the
   * grant history itself is kept in Postgres: a week.
   */
  agbot: { name: 'CAREEN_AGBOT', subjects: ['careen.agbot.>'], maxAgeMs: 7 * DAY_MS, maxBytes: 256 * MIB },
  /** Rollouts and their groups, for tools that follow them; a rollout's report lives in Postgres: a month. */
  orchestrator: {
    name: 'CAREEN_ORCHESTRATOR',
    subjects: ['careen.orchestrator.>'],
    maxAgeMs: 30 * DAY_MS,
    maxBytes: 256 * MIB,
  },
  /**
   * The audit trail's transport: actions told by the services, and each org's chained records
   * as the exchange stores them, for a SIEM to read. The trail itself lives in Postgres: a month.
   */
  audit: { name: 'CAREEN_AUDIT', subjects: ['careen.audit.>'], maxAgeMs: 30 * DAY_MS, maxBytes: 1024 * MIB },
} as const;

export type StreamKey = keyof typeof STREAMS;

export function deadLetterSubject(service: string): string {
  return `careen.dlq.${service}`;
}
