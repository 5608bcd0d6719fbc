/**
 * Calls the webhooks: every replica leases due subscriptions and drains each, its deliveries in
 * order, one call after another, all leased subscriptions at once, each call bounded by its
 * timeout, so a subscriber that is down or slow holds back only its own deliveries. A 2xx
 * delivers; anything else is tried again on the retry schedule until the delivery's deadline,
 * then it is dead (and the next one is tried). A delivery is marked delivered before the next
 * call: a replica that dies leaves at most the call under way to be sent again, with the same id
 * (at least once). The statements that serve many drains are shared: one lease and one read of
 * pending deliveries per pass (one statement), the marks and releases of all drains written
 * together.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { WakeableLoop } from '@careen/service';
import { request } from 'undici';
import { type Subscription } from '../subscriptions/subscription';
import { type WebhookTargets } from '../subscriptions/webhook-target';
import { type Delivery } from './delivery';
import { type DeliveryStore, type Released } from './delivery-store';
import { GroupCommit } from './group-commit';
import { nextAttempt, type RetrySettings } from './retry-schedule';
import { webhookRequest } from './webhook-request';

/** Subscriptions drained at once by one replica. */
const DRAINS = 256;
/** A subscription's pending deliveries read at a time. */
const BATCH = 32;

export interface DelivererOptions {
  deliveries: DeliveryStore;
  targets: WebhookTargets;
  retry: RetrySettings;
  timeoutMs: number;
  pollMs: number;
  observe?: (outcome: 'delivered' | 'retry' | 'dead', attempts: number, lagMs: number) => void;
  logger: { warn(fields: object, message: string): void };
}

export class Deliverer {
  private readonly draining = new Set<string>();
  private readonly loop: WakeableLoop;
  /** How long a lease lasts: a call's timeout twice over, and a second. */
  private readonly holdMs: number;
  private readonly delivered: GroupCommit<string>;
  private readonly released: GroupCommit<Released>;

  constructor(private readonly options: DelivererOptions) {
    this.holdMs = options.timeoutMs * 2 + 1_000;
    this.delivered = new GroupCommit((ids) => options.deliveries.delivered(ids));
    this.released = new GroupCommit((drained) => options.deliveries.release(drained));
    this.loop = new WakeableLoop(options.pollMs, (error) =>
      options.logger.warn({ err: String(error) }, 'delivery pass failed; trying again'),
    );
  }

  /** Delivers until `signal` aborts, then waits for the drains under way. */
  async run(signal: AbortSignal): Promise<void> {
    await this.loop.run(signal, async () => (await this.pass()) > 0);
    while (this.draining.size > 0) await pause(20);
  }

  /** New deliveries are owed: look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Leases due subscriptions and starts draining them; answers how many were leased. */
  private async pass(): Promise<number> {
    const room = DRAINS - this.draining.size;
    if (room <= 0) return 0;
    const { deliveries } = this.options;
    const leased = await deliveries.lease(room, this.holdMs, [...this.draining], BATCH);
    for (const { subscription, owedCount, pending } of leased) {
      this.draining.add(subscription.id);
      void this.drain(subscription, owedCount, pending)
        .catch((error: unknown) =>
          this.options.logger.warn(
            { subscription: subscription.id, err: String(error) },
            'draining a subscription failed; its lease runs out and it is taken up again',
          ),
        )
        .finally(() => {
          this.draining.delete(subscription.id);
          this.wake();
        });
    }
    return leased.length;
  }

  /**
   * Sends the subscription's pending deliveries in order, `first` (read with the lease) and then
   * what it reads, until none is due, then gives it back with the count read with the last of
   * them: a delivery owed since moved the count, and the release makes the subscription due.
   */
  private async drain(subscription: Subscription, owedCount: string, first: Delivery[]): Promise<void> {
    let leaseEnds = Date.now() + this.holdMs;
    let batch = first;
    for (;;) {
      for (const delivery of batch) {
        if (Date.parse(delivery.nextAttemptAt) > Date.now())
          return this.release(subscription, owedCount, delivery.nextAttemptAt);
        // Keep the lease for at least one more call.
        if (leaseEnds - Date.now() < this.options.timeoutMs + 1_000) {
          await this.options.deliveries.renew(subscription.id, this.holdMs);
          leaseEnds = Date.now() + this.holdMs;
        }
        const next = await this.deliver(subscription, delivery);
        if (next) return this.release(subscription, owedCount, next.toISOString());
      }
      // A short batch was all there was when it was read; anything owed since moved the count.
      if (batch.length < BATCH) return this.release(subscription, owedCount, null);
      const more = await this.options.deliveries.pending(subscription.id, BATCH);
      owedCount = more.owedCount;
      batch = more.deliveries;
    }
  }

  private release(subscription: Subscription, owedCount: string, nextDue: string | null): Promise<void> {
    return this.released.add({ subscription: subscription.id, owedCount, nextDue });
  }

  /** Makes one attempt and notes its outcome; answers when to try again after a failure, if ever. */
  private async deliver(subscription: Subscription, delivery: Delivery): Promise<Date | undefined> {
    const error = await this.call(subscription, delivery);
    const lagMs = Date.now() - Date.parse(delivery.eventTime);
    const attempts = delivery.attempts + 1;
    if (!error) {
      await this.delivered.add(delivery.id);
      this.options.observe?.('delivered', attempts, lagMs);
      return undefined;
    }
    const next = nextAttempt(attempts, new Date(), new Date(delivery.deadlineAt), this.options.retry);
    await this.options.deliveries.failed(delivery.id, error, next);
    this.options.observe?.(next ? 'retry' : 'dead', attempts, lagMs);
    if (!next)
      this.options.logger.warn(
        { subscription: subscription.id, event: delivery.eventId, error },
        'delivery dead-lettered after its last attempt',
      );
    return next;
  }

  /** One webhook call: undefined when the receiver took it, else why not. */
  private async call(subscription: Subscription, delivery: Delivery): Promise<string | undefined> {
    // Only webhook subscriptions are owed deliveries.
    const url = subscription.url!;
    try {
      const refused = await this.options.targets.problem(url);
      if (refused) return refused;
      const call = webhookRequest(subscription, delivery, new Date());
      // undici's request, not fetch: the same pooled keep-alive connections at a fraction of the
      // CPU per call; it follows no redirect.
      const response = await request(url, {
        method: 'POST',
        headers: call.headers,
        body: call.body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await response.body.dump();
      return response.statusCode >= 200 && response.statusCode < 300
        ? undefined
        : `the receiver answered ${response.statusCode}`;
    } catch (failure) {
      return failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
    }
  }
}
