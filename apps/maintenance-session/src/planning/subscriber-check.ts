/**
 * Asks the notifier whether anyone listens to a project's events (`careen.notifier.subscribed`).
 * Until a notifier answers (none running, or too slow), the configured default holds: a project
 * counted as unsubscribed is never asked and never waited for; its workloads are moved anyway.
 */
import { NOTIFIER_SUBSCRIBED_SUBJECT } from '@careen/contracts';
import { type NatsConnection } from '@nats-io/transport-node';

const ANSWER_WITHIN_MS = 500;

export class SubscriberCheck {
  constructor(
    private readonly nc: NatsConnection,
    private readonly assumeSubscribed: boolean,
  ) {}

  /** Each project's answer; a project the notifier did not answer for gets the default. */
  async subscribed(org: string, projects: readonly string[]): Promise<Map<string, boolean>> {
    const answers = await Promise.all(
      projects.map(async (project) => [project, await this.ask(org, project)] as const),
    );
    return new Map(answers);
  }

  private async ask(org: string, project: string): Promise<boolean> {
    try {
      const reply = await this.nc.request(
        NOTIFIER_SUBSCRIBED_SUBJECT,
        JSON.stringify({ org, project_id: project }),
        { timeout: ANSWER_WITHIN_MS },
      );
      const answer = reply.json<{ subscribed?: unknown }>();
      return typeof answer.subscribed === 'boolean' ? answer.subscribed : this.assumeSubscribed;
    } catch {
      return this.assumeSubscribed;
    }
  }
}
