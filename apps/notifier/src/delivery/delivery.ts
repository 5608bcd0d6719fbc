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
