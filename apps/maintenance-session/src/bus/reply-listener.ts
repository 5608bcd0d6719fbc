/**
 * Replies on `careen.maint.reply.<session_id>.<project_id>` (durable `maintenance-session-replies`,
 * shared by the replicas): the same handler as `PUT reply_url`. A body that breaks the reply
 * contract is dead-lettered with its reason before it gets here; a reply the session cannot
 * take (not asked, already answered, another project's instance) is noted in the session's
 * timeline and acknowledged, since asking the bus again would not change the answer. A reply
 * that says again what the project answered (a message given again after a crash before its
 * acknowledgement) is that answer: it is acknowledged, and noted nowhere. The
 * replies waiting together are given to their sessions at once, so that the replies of one
 * session's projects to the same ask are taken in one step. When a session's step fails (its
 * transaction), only that session's replies are tried again later, not the others taken with them.
 */
import {
  BatchFailures,
  runConsumer,
  type BusConnection,
  type BusLogger,
  type BusMessage,
  type RunningConsumer,
} from '@careen/bus';
import { MaintenanceReply, type MaintenanceReplyPayload } from '@careen/contracts';
import { type MaintenanceSessions } from '../sessions/maintenance-sessions';
import { refusalsAcknowledged } from './refusals';

export function listenForReplies(
  bus: BusConnection,
  sessions: Pick<MaintenanceSessions, 'reply'>,
  logger: BusLogger,
): Promise<RunningConsumer> {
  return runConsumer({
    bus,
    service: 'maintenance-session',
    purpose: 'replies',
    event: MaintenanceReply,
    maxAckPending: 256,
    logger,
    batchHandler: async (messages: BusMessage<MaintenanceReplyPayload>[]) => {
      const taken = await Promise.allSettled(
        messages.map((message) => {
          const [, , , session, project] = message.subject.split('.');
          return refusalsAcknowledged(logger, message.subject, 'reply refused', () =>
            sessions.reply(session!, project!, message.payload, { via: 'bus' }),
          );
        }),
      );
      // Only the replies whose step failed (their session's transaction) come again: the others
      // were taken, and would only be looked at again for nothing.
      const failures = new Map(
        taken.flatMap((each, index) => (each.status === 'rejected' ? [[messages[index]!, each.reason]] : [])),
      );
      if (failures.size > 0) throw new BatchFailures(failures);
    },
  });
}
