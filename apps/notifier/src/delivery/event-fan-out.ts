/**
 * Turns each maintenance event on CAREEN_MAINT into the deliveries it owes: project events
 * (durable `notifier-project-events`) to the org's subscriptions of that project or of all its
 * projects, admin events (`notifier-admin-events`) to its admin subscriptions for that host, each
 * filtered by state. The events waiting together are handled together: their subscriptions read
 * in one query, their deliveries written in one statement. A delivery is unique by subscription
 * and event, so a redelivered event owes nothing twice.
 */
import {
  runConsumer,
  type BusConnection,
  type BusLogger,
  type BusMessage,
  type RunningConsumer,
} from '@careen/bus';
import {
  MaintenanceAdminEvent,
  type MaintenanceAdminEventPayload,
  MaintenanceProjectEvent,
  type MaintenanceProjectEventPayload,
} from '@careen/contracts';
import { type Subscription, wantsAdminEvent, wantsProjectEvent } from '../subscriptions/subscription';
import { type SubscriptionStore } from '../subscriptions/subscription-store';
import { type DeliveryStore, type OwedEvent } from './delivery-store';

export interface FanOutOptions {
  bus: BusConnection;
  subscriptions: SubscriptionStore;
  deliveries: DeliveryStore;
  deadlineSeconds: number;
  /** Called once new deliveries are committed. */
  owed: () => void;
  logger: BusLogger;
}

const distinct = (values: (string | undefined)[]) =>
  [...new Set(values)].filter((value): value is string => value !== undefined);

/** Where a subscription is looked up: its org and its project (none for all projects or admin scope). */
const place = (org: string, project: string | null) => `${org}\u0000${project ?? ''}`;

export async function fanOutEvents(options: FanOutOptions): Promise<RunningConsumer[]> {
  /**
   * Owes each message to the candidates that want it, looking only at those of the org's places
   * `places` names for its payload.
   */
  const owe = async <P extends object>(
    messages: BusMessage<P>[],
    candidates: Subscription[],
    places: (payload: P) => string[],
    wants: (subscription: Subscription, payload: P) => boolean,
  ): Promise<void> => {
    const byPlace = new Map<string, Subscription[]>();
    for (const subscription of candidates) {
      const key = place(subscription.org, subscription.project);
      const here = byPlace.get(key);
      if (here) here.push(subscription);
      else byPlace.set(key, [subscription]);
    }
    const owed: [string, OwedEvent][] = [];
    for (const message of messages) {
      const event: OwedEvent = {
        id: message.attributes.id,
        type: message.attributes.type,
        time: message.attributes.time,
        source: message.attributes.source,
        sequence: message.streamSequence,
        subject: message.subject,
        payload: message.payload,
      };
      for (const key of places(message.payload))
        for (const subscription of byPlace.get(key) ?? [])
          if (wants(subscription, message.payload)) owed.push([subscription.id, event]);
    }
    if ((await options.deliveries.owe(owed, options.deadlineSeconds)) > 0) options.owed();
  };
  return [
    await runConsumer({
      bus: options.bus,
      service: 'notifier',
      purpose: 'project-events',
      event: MaintenanceProjectEvent,
      maxAckPending: 1024,
      maxBatch: 512,
      logger: options.logger,
      batchHandler: async (messages: BusMessage<MaintenanceProjectEventPayload>[]) => {
        const payloads = messages.map((message) => message.payload);
        // A project event without its org is owed to no one: project names are an org's own.
        const orgs = distinct(payloads.map((payload) => payload.org));
        const candidates =
          orgs.length === 0
            ? []
            : await options.subscriptions.webhooksForProjects(
                orgs,
                distinct(payloads.map((payload) => payload.project_id)),
              );
        await owe(
          messages,
          candidates,
          (payload) =>
            payload.org === undefined
              ? []
              : [place(payload.org, payload.project_id), place(payload.org, null)],
          (subscription, payload) =>
            payload.org !== undefined &&
            wantsProjectEvent(subscription, payload.org, payload.project_id, payload.state),
        );
      },
    }),
    await runConsumer({
      bus: options.bus,
      service: 'notifier',
      purpose: 'admin-events',
      event: MaintenanceAdminEvent,
      maxAckPending: 256,
      logger: options.logger,
      batchHandler: async (messages: BusMessage<MaintenanceAdminEventPayload>[]) => {
        // An admin event's project is the session's org.
        const candidates = await options.subscriptions.webhooksForAdmins(
          distinct(messages.map((message) => message.payload.project_id)),
        );
        await owe(
          messages,
          candidates,
          (payload) => [place(payload.project_id, null)],
          (subscription, payload) =>
            wantsAdminEvent(subscription, payload.project_id, payload.host, payload.state),
        );
      },
    }),
  ];
}
