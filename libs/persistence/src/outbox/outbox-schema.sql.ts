/**
 * DDL of the outbox and inbox tables, shared by every service's first migration so each
 * schema gets the same shape. `seq` is the relay's number, given once the row's transaction has
 * committed, which is what lets sequence numbers follow commit order. `tx_id` records the
 * writing transaction, for whoever looks into a row that was not published; the relay does not
 * read it.
 */
export function outboxSchemaUp(schema: string): string[] {
  return [
    `CREATE TABLE "${schema}".outbox (
      id bigserial PRIMARY KEY,
      tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      seq bigint UNIQUE,
      subject text NOT NULL,
      type text NOT NULL,
      payload jsonb NOT NULL,
      headers jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      published_at timestamptz
    )`,
    `CREATE SEQUENCE "${schema}".outbox_seq`,
    `CREATE INDEX outbox_unsequenced ON "${schema}".outbox (id) WHERE seq IS NULL`,
    `CREATE INDEX outbox_unpublished ON "${schema}".outbox (seq) WHERE published_at IS NULL AND seq IS NOT NULL`,
    `CREATE TABLE "${schema}".processed_messages (
      consumer text NOT NULL,
      message_id text NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer, message_id)
    )`,
  ];
}

export function outboxSchemaDown(schema: string): string[] {
  return [
    `DROP TABLE "${schema}".processed_messages`,
    `DROP TABLE "${schema}".outbox`,
    `DROP SEQUENCE "${schema}".outbox_seq`,
  ];
}

/** The NOTIFY channel the writer signals and the relay listens on. */
export function outboxChannel(schema: string): string {
  return `careen_outbox_${schema.replace(/[^a-z0-9_]/gi, '_')}`;
}

/** The NOTIFY channel the relay signals, with the highest new sequence number, once rows are numbered. */
export function outboxSequencedChannel(schema: string): string {
  return `${outboxChannel(schema)}_sequenced`;
}
