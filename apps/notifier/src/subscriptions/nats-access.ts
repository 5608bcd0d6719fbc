/**
 * What a `nats` subscriber is given: a durable pull consumer of its own on CAREEN_MAINT, filtered
 * to its project's subject and made and removed by the notifier (never by the subscriber), and a
 * NATS user, signed with the account's signing key, that may only read that consumer, acknowledge
 * its messages, publish the project's replies and receive on its own inbox prefix. The server
 * enforces all of it (decentralized JWT authorization), so one project cannot read another's
 * events; removing the subscription removes the consumer, and with it what the user could read.
 */
import { MaintenanceProjectEvent, MaintenanceReply, STREAMS } from '@careen/contracts';
import { AckPolicy, DeliverPolicy, type JetStreamManager } from '@nats-io/jetstream';
import { issueNatsUser } from '@careen/bus';

export interface NatsEndpoint {
  stream: string;
  durable: string;
  subject: string;
  /** `<session_id>` stands for the session a reply answers. */
  reply_subject: string;
  /** What the user may publish replies to. */
  reply_permission: string;
  inbox_prefix: string;
}

export interface NatsGrant {
  /** A NATS creds file: the user's JWT and seed. */
  credentials: string;
  user: string;
  expiresAt: Date;
}

export interface NatsIssuer {
  /** The account's public key. */
  account: string;
  /** A signing key of the account (a seed). */
  signingKey: string;
  ttlSeconds: number;
}

/** `careen.maint.reply.`: replies are `<this><session_id>.<project_id>`. */
const REPLIES = MaintenanceReply.filter.slice(0, -1);

export function natsEndpoint(subscriptionId: string, project: string): NatsEndpoint {
  const durable = durableOf(subscriptionId);
  return {
    stream: STREAMS.maintenance.name,
    durable,
    subject: MaintenanceProjectEvent.subject(project),
    reply_subject: `${REPLIES}<session_id>.${project}`,
    reply_permission: `${REPLIES}*.${project}`,
    inbox_prefix: `_INBOX_${durable}`,
  };
}

const durableOf = (subscriptionId: string) => `careen-sub-${subscriptionId}`;

export class NatsAccess {
  constructor(
    private readonly jsm: JetStreamManager,
    private readonly issuer: NatsIssuer | undefined,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Why `nats` subscriptions cannot be made here, if they cannot. */
  get unavailable(): string | undefined {
    return this.issuer
      ? undefined
      : 'kind: this notifier issues no NATS credentials (CAREEN_NOTIFIER_NATS_ACCOUNT and CAREEN_NOTIFIER_NATS_SIGNING_KEY are not set)';
  }

  /** The subscriber's consumer (made once; its events start now) and a user to read it with. */
  async open(subscriptionId: string, project: string): Promise<NatsGrant> {
    const endpoint = natsEndpoint(subscriptionId, project);
    await this.jsm.consumers.add(endpoint.stream, {
      durable_name: endpoint.durable,
      filter_subject: endpoint.subject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.New,
    });
    return this.issue(subscriptionId, project);
  }

  /** A new user for the same consumer; the one issued before stays valid until it expires. */
  async issue(subscriptionId: string, project: string): Promise<NatsGrant> {
    const issuer = this.issuer;
    if (!issuer) throw new Error(this.unavailable);
    const endpoint = natsEndpoint(subscriptionId, project);
    const api = `$JS.API.CONSUMER`;
    const at = `${endpoint.stream}.${endpoint.durable}`;
    const expiresAt = new Date(this.clock().getTime() + issuer.ttlSeconds * 1000);
    const issued = await issueNatsUser(issuer, {
      name: endpoint.durable,
      publish: [
        '$JS.API.INFO',
        `${api}.INFO.${at}`,
        `${api}.MSG.NEXT.${at}`,
        `$JS.ACK.${at}.>`,
        endpoint.reply_permission,
      ],
      subscribe: [`${endpoint.inbox_prefix}.>`],
      expiresAt,
    });
    return { ...issued, expiresAt };
  }

  /** Removes the subscriber's consumer: whatever users it was given read nothing more. */
  async close(subscriptionId: string): Promise<void> {
    await this.jsm.consumers
      .delete(STREAMS.maintenance.name, durableOf(subscriptionId))
      .catch((error: Error) => {
        if (!/consumer not found/i.test(error.message)) throw error;
      });
  }
}
