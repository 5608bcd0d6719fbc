/**
 * Admin tools that do a host's work themselves (`host_action: external`) report it done with an
 * admin event `MAINTENANCE_COMPLETE` on `careen.maint.admin.<host>` (durable
 * `maintenance-session-admin-events`). The service's own admin events on those subjects, and
 * any other state, are passed over.
 */
import { runConsumer, type BusConnection, type BusLogger, type RunningConsumer } from '@careen/bus';
import { MaintenanceAdminEvent } from '@careen/contracts';
import { type MaintenanceSessions } from '../sessions/maintenance-sessions';
import { refusalsAcknowledged } from './refusals';

export const OWN_EVENT_SOURCE = 'careen/maintenance-session';

export function listenForAdminEvents(
  bus: BusConnection,
  sessions: MaintenanceSessions,
  logger: BusLogger,
): Promise<RunningConsumer> {
  return runConsumer({
    bus,
    service: 'maintenance-session',
    purpose: 'admin-events',
    event: MaintenanceAdminEvent,
    maxAckPending: 64,
    logger,
    handler: async (message) => {
      if (message.attributes.source === OWN_EVENT_SOURCE || message.payload.state !== 'MAINTENANCE_COMPLETE')
        return;
      await refusalsAcknowledged(logger, message.subject, 'host completion refused', () =>
        sessions.completeHost(message.payload.session_id, message.payload.host, message.attributes.source),
      );
    },
  });
}
