/**
 * Answers `careen.notifier.subscribed` for the maintenance service: `{org, project_id}` →
 * `{subscribed}`, whether any subscription of the org takes the project's events. Every replica
 * answers in the queue group `notifier`, so one does.
 */
import { NOTIFIER_SUBSCRIBED_SUBJECT } from '@careen/contracts';
import { type NatsConnection, type Subscription as NatsSubscription } from '@nats-io/transport-node';
import { type SubscriptionStore } from './subscription-store';

export function answerSubscribedQuestions(
  nc: NatsConnection,
  store: SubscriptionStore,
  logger: { warn(fields: object, message: string): void },
): NatsSubscription {
  return nc.subscribe(NOTIFIER_SUBSCRIBED_SUBJECT, {
    queue: 'notifier',
    callback: (error, message) => {
      if (error) return;
      void (async () => {
        try {
          const question = message.json<{ org?: unknown; project_id?: unknown }>();
          if (typeof question.org !== 'string' || typeof question.project_id !== 'string') {
            message.respond(JSON.stringify({ error: 'ask with {org, project_id}, both strings' }));
            return;
          }
          const subscribed = await store.projectHasSubscriber(question.org, question.project_id);
          message.respond(JSON.stringify({ subscribed }));
        } catch (failure) {
          logger.warn({ err: String(failure) }, 'could not answer whether a project has a subscriber');
          message.respond(JSON.stringify({ error: 'not answered' }));
        }
      })();
    },
  });
}
