/**
 * Deliveries in SQL. The deliverers of every replica claim due deliveries with SKIP LOCKED,
 * only the oldest pending one of each subscription (so a subscription gets its events in
 * order), and hold them for a while (`locked_until`) so a replica that dies mid-call leaves them
 * to be claimed again: at least once, never lost.
 */
import { type DataSource, type EntityManager } from 'typeorm';
import { type Delivery, type DeliveryState } from './delivery';

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  event_time: Date;
  event_source: string;
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

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: String(row.id),
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type,
    eventTime: row.event_time.toISOString(),
    eventSource: row.event_source,
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

export interface OwedEvent {
  id: string;
  type: string;
  time: string;
  source: string;
  subject: string;
  payload: object;
}

export class DeliveryStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Owes `event` to each subscription (once: a redelivered event adds nothing). */
  async owe(
    manager: EntityManager,
    subscriptions: readonly string[],
    event: OwedEvent,
    deadlineSeconds: number,
  ) {
    if (subscriptions.length === 0) return;
    await manager.query(
      `INSERT INTO notifier.deliveries
         (subscription_id, event_id, event_type, event_time, event_source, subject, payload, deadline_at)
       SELECT unnest($1::uuid[]), $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8)
       ON CONFLICT (subscription_id, event_id) DO NOTHING`,
      [
        subscriptions,
        event.id,
        event.type,
        event.time,
        event.source,
        event.subject,
        JSON.stringify(event.payload),
        deadlineSeconds,
      ],
    );
  }

  /** Claims up to `limit` due deliveries, each the oldest pending of its subscription, for `holdMs`. */
  async claim(limit: number, holdMs: number): Promise<Delivery[]> {
    // An UPDATE … RETURNING answers [rows, count].
    const [rows] = (await this.dataSource.query(
      `UPDATE notifier.deliveries SET locked_until = now() + make_interval(secs => $2)
        WHERE id IN (
          SELECT d.id FROM notifier.deliveries d
           WHERE d.state = 'pending' AND d.next_attempt_at <= now()
             AND (d.locked_until IS NULL OR d.locked_until < now())
             AND NOT EXISTS (SELECT 1 FROM notifier.deliveries e
                              WHERE e.subscription_id = d.subscription_id AND e.state = 'pending' AND e.id < d.id)
           ORDER BY d.id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [limit, holdMs / 1000],
    )) as [DeliveryRow[], number];
    return rows.map(toDelivery);
  }

  async delivered(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notifier.deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = now(),
              last_error = NULL, locked_until = NULL WHERE id = $1`,
      [id],
    );
  }

  /** A failed attempt: tried again at `next`, or dead without one. */
  async failed(id: string, error: string, next: Date | undefined): Promise<void> {
    await this.dataSource.query(
      `UPDATE notifier.deliveries SET attempts = attempts + 1, last_error = $2, locked_until = NULL,
              state = CASE WHEN $3::timestamptz IS NULL THEN 'dead' ELSE 'pending' END,
              next_attempt_at = coalesce($3::timestamptz, next_attempt_at)
        WHERE id = $1`,
      [id, error.slice(0, 1024), next ?? null],
    );
  }

  /** A dead delivery tried again from now, with a fresh deadline. */
  async redeliver(id: string, deadlineSeconds: number): Promise<Delivery | undefined> {
    const [rows] = (await this.dataSource.query(
      `UPDATE notifier.deliveries SET state = 'pending', next_attempt_at = now(), locked_until = NULL,
              deadline_at = now() + make_interval(secs => $2)
        WHERE id = $1 AND state = 'dead' RETURNING *`,
      [id, deadlineSeconds],
    )) as [DeliveryRow[], number];
    return rows[0] && toDelivery(rows[0]);
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
