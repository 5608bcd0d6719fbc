/**
 * Turns each maintenance event on CAREEN_MAINT into the deliveries it owes: project events
 * (durable `notifier-project-events`) to the org's subscriptions of that project or of all its
 * projects, admin events (`notifier-admin-events`) to its admin subscriptions for that host, each
 * filtered by state. The deliveries and the note that the event was handled commit together, so
 * a redelivered event owes nothing twice.
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
import { type ProcessedMessages } from '@careen/persistence';
import { type SubscriptionStore } from '../subscriptions/subscription-store';
import { type DeliveryStore } from './delivery-store';

export interface FanOutOptions {
  bus: BusConnection;
  processed: ProcessedMessages;
  subscriptions: SubscriptionStore;
  deliveries: DeliveryStore;
  deadlineSeconds: number;
  /** Called once new deliveries are committed. */
  owed: () => void;
  logger: BusLogger;
}

export async function fanOutEvents(options: FanOutOptions): Promise<RunningConsumer[]> {
  const owe = async <P extends object>(
    consumer: string,
    message: BusMessage<P>,
    find: () => Promise<{ id: string }[]>,
  ): Promise<void> => {
    const subscriptions = await find();
    const applied = await options.processed.applyOnce(consumer, message.attributes.id, (manager) =>
      options.deliveries.owe(
        manager,
        subscriptions.map((each) => each.id),
        {
          id: message.attributes.id,
          type: message.attributes.type,
          time: message.attributes.time,
          source: message.attributes.source,
          subject: message.subject,
          payload: message.payload,
        },
        options.deadlineSeconds,
      ),
    );
    if (applied && subscriptions.length > 0) options.owed();
  };
  return [
    await runConsumer({
      bus: options.bus,
      service: 'notifier',
      purpose: 'project-events',
      event: MaintenanceProjectEvent,
      maxAckPending: 256,
      logger: options.logger,
      handler: (message: BusMessage<MaintenanceProjectEventPayload>) =>
        owe('notifier-project-events', message, async () =>
          message.payload.org
            ? options.subscriptions.forProjectEvent(
                message.payload.org,
                message.payload.project_id,
                message.payload.state,
              )
            : [],
        ),
    }),
    await runConsumer({
      bus: options.bus,
      service: 'notifier',
      purpose: 'admin-events',
      event: MaintenanceAdminEvent,
      maxAckPending: 256,
      logger: options.logger,
      handler: (message: BusMessage<MaintenanceAdminEventPayload>) =>
        owe('notifier-admin-events', message, () =>
          // An admin event's project is the session's org.
          options.subscriptions.forAdminEvent(
            message.payload.project_id,
            message.payload.host,
            message.payload.state,
          ),
        ),
    }),
  ];
}
