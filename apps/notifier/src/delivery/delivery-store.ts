/**
 * Deliveries in SQL. The deliverers of every replica lease due subscriptions with SKIP LOCKED
 * (one replica drains a subscription, so it gets its events in order) for a while
 * (`lease_until`), so that a replica that dies mid-call leaves the subscription to be leased
 * again: at least once, never lost. Owing bumps the subscription's `owed_count` in the same
 * statement; a drain that found nothing more releases the subscription as due at once when
 * the count moved since it looked, so a delivery owed meanwhile is not left behind.
 */
import { type AuditTrail } from '@careen/service';
import { type DataSource } from 'typeorm';
import { type Subscription } from '../subscriptions/subscription';
import { type SubscriptionRow, toSubscription } from '../subscriptions/subscription-store';
import { type Delivery, type DeliveryState } from './delivery';

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  event_time: Date;
  event_source: string;
  event_sequence: string | number | null;
  subject: string;
  payload: Record<string, unknown>;
  state: DeliveryState;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  next_attempt_at: Date;
  deadline_at: Date;
  delivered_at: Date | null;
}

/** A delivery row as `to_jsonb` gives it: its times as text. */
function fromJson(row: DeliveryRow): DeliveryRow {
  const time = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...row,
    event_time: time(row.event_time)!,
    created_at: time(row.created_at)!,
    next_attempt_at: time(row.next_attempt_at)!,
    deadline_at: time(row.deadline_at)!,
    delivered_at: time(row.delivered_at),
  };
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: String(row.id),
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type,
    eventTime: row.event_time.toISOString(),
    eventSource: row.event_source,
    eventSequence: row.event_sequence === null ? null : Number(row.event_sequence),
    subject: row.subject,
    payload: row.payload,
    state: row.state,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    nextAttemptAt: row.next_attempt_at.toISOString(),
    deadlineAt: row.deadline_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}

/** SQL: the first `limit` pending deliveries of subscription `id`, oldest first, as one JSON array. */
const pendingOf = (id: string, limit: string) => `coalesce((
  SELECT json_agg(d ORDER BY d.id) FROM (
    SELECT * FROM notifier.deliveries
     WHERE subscription_id = ${id} AND state = 'pending' ORDER BY id LIMIT ${limit}) d), '[]')`;

export interface OwedEvent {
  id: string;
  type: string;
  time: string;
  source: string;
  /** Its CAREEN_MAINT stream sequence: the id the event stream gives it. */
  sequence: number;
  subject: string;
  payload: object;
}

/** A subscription leased for delivery, its `owed_count` when leased, and its first pending deliveries. */
export interface LeasedSubscription {
  subscription: Subscription;
  owedCount: string;
  pending: Delivery[];
}

/** A drained subscription given back: its count as last read, and when it is due again. */
export interface Released {
  subscription: string;
  owedCount: string;
  nextDue: string | null;
}

/** A subscription's next pending deliveries, in order, and its `owed_count` as they were read. */
export interface PendingDeliveries {
  owedCount: string;
  deliveries: Delivery[];
}

export class DeliveryStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: Pick<AuditTrail, 'record'>,
  ) {}

  /**
   * Owes events to subscriptions (`owed`: `[subscription, event]`, in event order) and makes
   * those subscriptions due unless they already are, in one statement. An event owed before (a
   * redelivered one) adds nothing: a delivery is unique by subscription and event. Answers how
   * many deliveries were owed.
   */
  async owe(owed: readonly [string, OwedEvent][], deadlineSeconds: number): Promise<number> {
    if (owed.length === 0) return 0;
    const column = <T>(pick: (entry: [string, OwedEvent]) => T) => owed.map(pick);
    const [row] = (await this.dataSource.query(
      `WITH inserted AS (
         INSERT INTO notifier.deliveries
           (subscription_id, event_id, event_type, event_time, event_source, subject, payload, deadline_at,
            event_sequence)
         SELECT s, i, t, tm, src, sub, p::jsonb, now() + make_interval(secs => $8), seq
           FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[],
                       $9::bigint[])
                WITH ORDINALITY AS owed (s, i, t, tm, src, sub, p, seq, place)
          ORDER BY place
         ON CONFLICT (subscription_id, event_id) DO NOTHING
         RETURNING subscription_id),
       due AS (
         -- In id order, so that two owing statements never wait on each other in a cycle.
         UPDATE notifier.subscriptions SET owed_count = owed_count + 1, due_at = coalesce(due_at, now())
          WHERE id IN (SELECT id FROM notifier.subscriptions
                        WHERE id IN (SELECT subscription_id FROM inserted) ORDER BY id FOR UPDATE))
       SELECT count(*)::int AS owed FROM inserted`,
      [
        column(([subscription]) => subscription),
        column(([, event]) => event.id),
        column(([, event]) => event.type),
        column(([, event]) => event.time),
        column(([, event]) => event.source),
        column(([, event]) => event.subject),
        column(([, event]) => JSON.stringify(event.payload)),
        deadlineSeconds,
        column(([, event]) => event.sequence),
      ],
    )) as { owed: number }[];
    return row?.owed ?? 0;
  }

  /**
   * Leases up to `limit` due subscriptions that no replica holds, for `holdMs`, but for those
   * of `draining` (this replica's, which it takes up again once their drain is over), and reads
   * up to `batch` of each one's pending deliveries with it, in one statement.
   */
  async lease(
    limit: number,
    holdMs: number,
    draining: readonly string[],
    batch: number,
  ): Promise<LeasedSubscription[]> {
    // One row per subscription, its deliveries as one JSON array: a subscription's columns are
    // read once, not once for each of its deliveries.
    const rows: (SubscriptionRow & { owed_count: string; pending: DeliveryRow[] })[] =
      await this.dataSource.query(
        `WITH leased AS (
         UPDATE notifier.subscriptions SET lease_until = now() + make_interval(secs => $2)
          WHERE id IN (
            SELECT id FROM notifier.subscriptions
             WHERE due_at <= now() AND (lease_until IS NULL OR lease_until < now()) AND id <> ALL($3::uuid[])
             ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING *)
       SELECT leased.*, ${pendingOf('leased.id', '$4')} AS pending FROM leased`,
        [limit, holdMs / 1000, draining, batch],
      );
    return rows.map((row) => ({
      subscription: toSubscription(row),
      owedCount: row.owed_count,
      pending: row.pending.map((delivery) => toDelivery(fromJson(delivery))),
    }));
  }

  /** Keeps a leased subscription for `holdMs` more. */
  async renew(subscription: string, holdMs: number): Promise<void> {
    await this.dataSource.query(
      'UPDATE notifier.subscriptions SET lease_until = now() + make_interval(secs => $2) WHERE id = $1',
      [subscription, holdMs / 1000],
    );
  }

  /** Up to `limit` of the subscription's pending deliveries, oldest first, read at once with its count. */
  async pending(subscription: string, limit: number): Promise<PendingDeliveries> {
    const rows: { owed_count: string; pending: DeliveryRow[] }[] = await this.dataSource.query(
      `SELECT owed_count, ${pendingOf('$1', '$2')} AS pending FROM notifier.subscriptions WHERE id = $1`,
      [subscription, limit],
    );
    return {
      owedCount: rows[0]?.owed_count ?? '0',
      deliveries: (rows[0]?.pending ?? []).map((delivery) => toDelivery(fromJson(delivery))),
    };
  }

  /**
   * Gives drained subscriptions back: each due at its `nextDue` (its head's next attempt; null
   * when nothing is pending), or at once when deliveries were owed since its `owedCount` was read.
   */
  async release(drained: readonly Released[]): Promise<void> {
    if (drained.length === 0) return;
    await this.dataSource.query(
      // Rows locked in id order, as owing locks them, so that the two never deadlock.
      `UPDATE notifier.subscriptions s
          SET lease_until = NULL,
              due_at = CASE WHEN s.owed_count <> r.seen THEN now() ELSE r.next_due END
         FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) AS r (id, seen, next_due)
        WHERE s.id = r.id
          AND s.id IN (SELECT id FROM notifier.subscriptions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE)`,
      [
        drained.map((each) => each.subscription),
        drained.map((each) => each.owedCount),
        drained.map((each) => each.nextDue),
      ],
    );
  }

  async delivered(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource.query(
      `UPDATE notifier.deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = now(),
              last_error = NULL WHERE id = ANY($1::bigint[])`,
      [ids],
    );
  }

  /** A failed attempt: tried again at `next`, or dead without one. */
  async failed(id: string, error: string, next: Date | undefined): Promise<void> {
    await this.dataSource.query(
      `UPDATE notifier.deliveries SET attempts = attempts + 1, last_error = $2,
              state = CASE WHEN $3::timestamptz IS NULL THEN 'dead' ELSE 'pending' END,
              next_attempt_at = coalesce($3::timestamptz, next_attempt_at)
        WHERE id = $1`,
      [id, error.slice(0, 1024), next ?? null],
    );
  }

  /** A dead delivery tried again from now, with a fresh deadline; its subscription is due. */
  async redeliver(id: string, deadlineSeconds: number): Promise<Delivery | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const [rows] = (await manager.query(
        `UPDATE notifier.deliveries SET state = 'pending', next_attempt_at = now(),
                deadline_at = now() + make_interval(secs => $2)
          WHERE id = $1 AND state = 'dead' RETURNING *`,
        [id, deadlineSeconds],
      )) as [DeliveryRow[], number];
      if (!rows[0]) return undefined;
      const [[owner]] = (await manager.query(
        `UPDATE notifier.subscriptions SET owed_count = owed_count + 1, due_at = now() WHERE id = $1 RETURNING org`,
        [rows[0].subscription_id],
      )) as [{ org: string }[], number];
      if (owner)
        await this.audit.record(manager, {
          org: owner.org,
          action: 'delivery.redelivered',
          target: `delivery/${id}`,
        });
      return toDelivery(rows[0]);
    });
  }

  async get(id: string): Promise<Delivery | undefined> {
    const rows: DeliveryRow[] = await this.dataSource.query(
      'SELECT * FROM notifier.deliveries WHERE id = $1',
      [id],
    );
    return rows[0] && toDelivery(rows[0]);
  }

  /** The org's deliveries, newest first, of one subscription and state when given. */
  async list(org: string, subscription: string | undefined, state: DeliveryState | undefined, limit: number) {
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT d.* FROM notifier.deliveries d JOIN notifier.subscriptions s ON s.id = d.subscription_id
        WHERE s.org = $1 AND ($2::uuid IS NULL OR d.subscription_id = $2) AND ($3::text IS NULL OR d.state = $3)
        ORDER BY d.id DESC LIMIT $4`,
      [org, subscription ?? null, state ?? null, limit],
    );
    return rows.map(toDelivery);
  }
}
