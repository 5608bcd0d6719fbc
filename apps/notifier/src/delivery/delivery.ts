/** An event owed to a subscription, as stored. */
export const DELIVERY_STATES = ['pending', 'delivered', 'dead'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface Delivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  eventTime: string;
  eventSource: string;
  /** The event's CAREEN_MAINT stream sequence (its event-stream id); null for deliveries owed before it was kept. */
  eventSequence: number | null;
  subject: string;
  payload: Record<string, unknown>;
  state: DeliveryState;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string;
  deadlineAt: string;
  deliveredAt: string | null;
}

/** A delivery as the routes show it (the event's payload left out: the event id names it). */
export interface DeliveryView {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  subject: string;
  state: DeliveryState;
  attempts: number;
  last_error: string | null;
  created_at: string;
  next_attempt_at: string;
  deadline_at: string;
  delivered_at: string | null;
}

export function deliveryView(delivery: Delivery): DeliveryView {
  return {
    id: delivery.id,
    subscription_id: delivery.subscriptionId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    subject: delivery.subject,
    state: delivery.state,
    attempts: delivery.attempts,
    last_error: delivery.lastError,
    created_at: delivery.createdAt,
    next_attempt_at: delivery.nextAttemptAt,
    deadline_at: delivery.deadlineAt,
    delivered_at: delivery.deliveredAt,
  };
}
