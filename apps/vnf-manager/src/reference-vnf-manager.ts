/**
 * Careen's reference VNF manager: what an application team adds to its own manager so that its
 * application is asked, and answers, before a host it runs on goes into maintenance. It follows
 * its project's events on `careen.maint.project.<project>` through a durable JetStream consumer
 * (so no event is missed while it restarts) — its own, or the one a `nats` subscription gave it,
 * read with that subscription's credentials — or receives them as webhooks from the notifier,
 * and answers each state that waits for a reply:
 *
 * - MAINTENANCE: acknowledged (the application can live with hosts going away one by one);
 * - DOWN_SCALE: its deployment policy is scaled down by one replica, then acknowledged;
 * - PREPARE_MAINTENANCE / PLANNED_MAINTENANCE: an action per instance on the host, read from the
 *   event's `instance_ids` URL (chooseInstanceActions), then acknowledged;
 * - MAINTENANCE_COMPLETE: the deployment policy scaled back, then acknowledged.
 *
 * Replies go on `careen.maint.reply.<session>.<project>` or to the event's `reply_url`.
 */
import { dataOf } from '@careen/api-client';
import { runConsumer, cloudEventHeaders, type BusConnection, type RunningConsumer } from '@careen/bus';
import {
  type InstanceAction,
  MaintenanceProjectEvent,
  type MaintenanceProjectEventPayload,
  MaintenanceReply,
  type MaintenanceReplyPayload,
} from '@careen/contracts';
import { type ExchangeClient } from '@careen/service';
import { randomUUID } from 'node:crypto';
import { chooseInstanceActions } from './instance-actions';
import { WebhookReceiver } from './webhook-receiver';

export type ReplyVia = 'bus' | 'http';
/** How a state is answered: the default acknowledges all; tests and demos may refuse or stay silent. */
export type Answer = 'ack' | 'nack' | 'silent';

export interface VnfManagerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * How events reach the manager: its own durable consumer, a `nats` subscription's consumer (made
 * by the notifier), or webhooks the notifier posts.
 */
export type Follow =
  | { via: 'bus' }
  | { via: 'nats'; consumer: string }
  | { via: 'webhook'; port: number; host?: string; secret?: string | (() => string | undefined) };

export interface ReferenceVnfManagerOptions {
  /** Needed to follow on the bus or to reply on it. */
  bus?: BusConnection;
  project: string;
  /** Default: the bus. */
  follow?: Follow;
  replyVia: ReplyVia;
  /** The exchange, as a user allowed to change the project's deployment policy (for DOWN_SCALE). */
  exchange?: { client: ExchangeClient; org: string; deploymentPolicy: string };
  answer?: (event: MaintenanceProjectEventPayload) => Answer | Promise<Answer>;
  /** Sees every event the manager handled and the reply it sent, if any. */
  observe?: (event: MaintenanceProjectEventPayload, reply: MaintenanceReplyPayload | undefined) => void;
  logger: VnfManagerLogger;
  /**
   * How an event whose handling failed (its reply not delivered, its instances not read) is
   * tried again: total deliveries and the delays between them. Unset, the bus's defaults.
   */
  retry?: { maxDeliver: number; backoffMs: readonly number[] };
}

export class ReferenceVnfManager {
  private consumer: RunningConsumer | undefined;
  private receiver: WebhookReceiver | undefined;
  /** Replicas before a DOWN_SCALE, by session, to scale back to. */
  private readonly scaledFrom = new Map<string, number>();

  constructor(private readonly options: ReferenceVnfManagerOptions) {}

  /** Starts following; with webhooks, answers the URL to subscribe. */
  async start(): Promise<string | undefined> {
    const follow = this.options.follow ?? { via: 'bus' };
    if (follow.via === 'webhook') {
      this.receiver = new WebhookReceiver({
        ...follow,
        project: this.options.project,
        onEvent: (event) => this.handle(event),
      });
      return this.receiver.start();
    }
    this.consumer = await runConsumer({
      bus: this.requireBus(),
      service: 'vnfm',
      purpose: this.options.project,
      event: MaintenanceProjectEvent,
      filterSubject: MaintenanceProjectEvent.subject(this.options.project),
      given: follow.via === 'nats' ? follow.consumer : undefined,
      maxAckPending: 16,
      ...this.options.retry,
      logger: this.options.logger,
      handler: (message) => this.handle(message.payload),
    });
    return undefined;
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    await this.receiver?.stop();
  }

  private requireBus(): BusConnection {
    if (!this.options.bus) throw new Error('following or replying on the bus needs a bus connection');
    return this.options.bus;
  }

  private async handle(event: MaintenanceProjectEventPayload): Promise<void> {
    if (!event.reply_url) {
      this.options.observe?.(event, undefined);
      return;
    }
    const answer = (await this.options.answer?.(event)) ?? 'ack';
    if (answer === 'silent') {
      this.options.observe?.(event, undefined);
      return;
    }
    const reply: MaintenanceReplyPayload = { state: `${answer === 'ack' ? 'ACK' : 'NACK'}_${event.state}` };
    if (answer === 'ack') {
      if (event.state === 'DOWN_SCALE') await this.scale(event.session_id, 'down');
      if (event.state === 'MAINTENANCE_COMPLETE') await this.scale(event.session_id, 'back');
      if (event.state === 'PREPARE_MAINTENANCE' || event.state === 'PLANNED_MAINTENANCE')
        reply.instance_actions = await this.instanceActions(event);
    }
    await this.send(event, reply);
    this.options.observe?.(event, reply);
  }

  private async instanceActions(
    event: MaintenanceProjectEventPayload,
  ): Promise<Record<string, InstanceAction>> {
    const response = await fetch(event.instance_ids);
    if (!response.ok) throw new Error(`reading ${event.instance_ids}: ${response.status}`);
    const { instances } = (await response.json()) as { instances: { instance_id: string; host: string }[] };
    return chooseInstanceActions(instances, event.host, event.allowed_actions ?? []);
  }

  private async send(event: MaintenanceProjectEventPayload, reply: MaintenanceReplyPayload): Promise<void> {
    if (this.options.replyVia === 'http') {
      const response = await fetch(event.reply_url!, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...reply, session_id: event.session_id }),
      });
      // A 409 says the ask is closed (answered before a restart, or timed out): nothing to retry.
      if (!response.ok && response.status !== 409)
        throw new Error(
          `replying ${reply.state} to ${event.reply_url}: ${response.status} ${await response.text()}`,
        );
      return;
    }
    await this.requireBus().js.publish(
      MaintenanceReply.subject(event.session_id, event.project_id),
      JSON.stringify(reply),
      {
        headers: cloudEventHeaders({
          id: randomUUID(),
          type: MaintenanceReply.type,
          source: `careen/vnfm/${this.options.project}`,
          time: new Date().toISOString(),
        }),
      },
    );
  }

  /** DOWN_SCALE: one replica fewer; MAINTENANCE_COMPLETE: back to what it was. */
  private async scale(session: string, direction: 'down' | 'back'): Promise<void> {
    const target = this.options.exchange;
    if (!target) return;
    const path = { params: { path: { org: target.org, name: target.deploymentPolicy } } };
    const policy = await dataOf(target.client.api.GET('/v1/orgs/{org}/deployment-policies/{name}', path));
    const replicas = policy.placement.replicas;
    if (policy.placement.mode !== 'replicas' || replicas === undefined) return;
    let next: number | undefined;
    if (direction === 'down' && !this.scaledFrom.has(session)) {
      this.scaledFrom.set(session, replicas);
      next = Math.max(1, replicas - 1);
    } else if (direction === 'back' && this.scaledFrom.has(session)) {
      next = this.scaledFrom.get(session);
      this.scaledFrom.delete(session);
    }
    if (next === undefined || next === replicas) return;
    await dataOf(
      target.client.api.PUT('/v1/orgs/{org}/deployment-policies/{name}', {
        ...path,
        body: {
          ...(policy.description ? { description: policy.description } : {}),
          project: policy.project,
          service: policy.service,
          properties: policy.properties,
          constraints: policy.constraints,
          placement: { mode: 'replicas', replicas: next },
        },
      }),
    );
    this.options.logger.info(
      { deploymentPolicy: target.deploymentPolicy, replicas: next },
      `scaled ${direction}`,
    );
  }
}
