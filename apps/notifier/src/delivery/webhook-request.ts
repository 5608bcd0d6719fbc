/**
 * The HTTP request a webhook delivery makes, in the subscription's format, signed per Standard
 * Webhooks with every live secret of the subscription:
 *
 * - `cloudevents`: CloudEvents 1.0 in HTTP binary mode — the attributes as `ce-*` headers, the
 *   event's payload as the JSON body; `ce-id` is the event's identity (the bus's `ce-id` header,
 *   the event stream's `data.id`) and the `streamsequence` extension its CAREEN_MAINT stream
 *   sequence (the event stream's SSE `id`), so that either id finds the same event anywhere;
 * - `aodh`: the body an OpenStack AODH event alarm posts to its alarm action, so VNF managers
 *   written for Fenix and Doctor read it unchanged: `reason_data.event` with `event_type`
 *   `maintenance.scheduled` (project events) or `maintenance.host` (admin events) and the
 *   payload as traits `[name, type, value]`, type 1 text, 2 integer, 3 float, 4 datetime.
 *
 * Either way in the subscription's event names (event-names.ts).
 */
import { MaintenanceAdminEvent, signWebhook } from '@careen/contracts';
import { type Delivery } from './delivery';
import { namedFor } from './event-names';
import { liveSecrets, type Subscription } from '../subscriptions/subscription';

export interface WebhookRequest {
  headers: Record<string, string>;
  body: string;
}

const TRAIT_TEXT = 1;
const TRAIT_INTEGER = 2;
const TRAIT_FLOAT = 3;
const TRAIT_DATETIME = 4;
const DATETIME_FIELDS = new Set(['actions_at', 'reply_at']);

export function webhookRequest(subscription: Subscription, delivery: Delivery, now: Date): WebhookRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let body: string;
  if (subscription.format === 'cloudevents') {
    Object.assign(headers, {
      'ce-specversion': '1.0',
      'ce-id': delivery.eventId,
      'ce-type': delivery.eventType,
      'ce-source': delivery.eventSource,
      'ce-time': delivery.eventTime,
      'ce-subject': delivery.subject,
      ...(delivery.eventSequence === null ? {} : { 'ce-streamsequence': String(delivery.eventSequence) }),
    });
    body = JSON.stringify(namedFor(subscription.eventNames, delivery.payload));
  } else {
    body = JSON.stringify(aodhAlarm(subscription, delivery));
  }
  const timestamp = Math.floor(now.getTime() / 1000);
  headers['webhook-id'] = delivery.eventId;
  headers['webhook-timestamp'] = String(timestamp);
  headers['webhook-signature'] = liveSecrets(subscription, now)
    .map((secret) => signWebhook(secret, delivery.eventId, timestamp, body))
    .join(' ');
  return { headers, body };
}

/** AODH's event-alarm notification body for the delivery's event. */
export function aodhAlarm(subscription: Subscription, delivery: Delivery) {
  const admin = delivery.eventType === MaintenanceAdminEvent.type;
  const eventType = admin ? 'maintenance.host' : 'maintenance.scheduled';
  return {
    alarm_name: `careen-${subscription.id}`,
    alarm_id: subscription.id,
    severity: 'moderate',
    previous: 'ok',
    current: 'alarm',
    reason: `Event <id=${delivery.eventId},event_type=${eventType}> hits the query <query=[]>.`,
    reason_data: {
      type: 'event',
      event: {
        message_id: delivery.eventId,
        event_type: eventType,
        generated: delivery.eventTime,
        traits: Object.entries(namedFor(subscription.eventNames, delivery.payload)).map(([name, value]) =>
          trait(name, value),
        ),
        raw: {},
        message_signature: '',
      },
    },
  };
}

function trait(name: string, value: unknown): [string, number, unknown] {
  if (DATETIME_FIELDS.has(name) && typeof value === 'string') return [name, TRAIT_DATETIME, value];
  if (typeof value === 'number') return [name, Number.isInteger(value) ? TRAIT_INTEGER : TRAIT_FLOAT, value];
  if (typeof value === 'string') return [name, TRAIT_TEXT, value];
  // Lists and objects (allowed_actions, metadata) travel as JSON text, as Fenix sends them.
  return [name, TRAIT_TEXT, JSON.stringify(value)];
}
