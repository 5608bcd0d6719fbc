/**
 * Calls the webhooks: every replica claims due deliveries and makes the calls, each
 * subscription's in order and all subscriptions' at once, each call bounded by its timeout, so a
 * subscriber that is down or slow holds back only its own deliveries. A 2xx delivers; anything
 * else is tried again on the retry schedule until the delivery's deadline, then it is dead.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { WakeableLoop } from '@careen/service';
import { type SubscriptionStore } from '../subscriptions/subscription-store';
import { type WebhookTargets } from '../subscriptions/webhook-target';
import { type Delivery } from './delivery';
import { type DeliveryStore } from './delivery-store';
import { nextAttempt, type RetrySettings } from './retry-schedule';
import { webhookRequest } from './webhook-request';

const BATCH = 256;

export interface DelivererOptions {
  deliveries: DeliveryStore;
  subscriptions: SubscriptionStore;
  targets: WebhookTargets;
  retry: RetrySettings;
  timeoutMs: number;
  pollMs: number;
  observe?: (outcome: 'delivered' | 'retry' | 'dead', attempts: number, lagMs: number) => void;
  logger: { warn(fields: object, message: string): void };
}

export class Deliverer {
  private readonly inFlight = new Set<string>();
  private readonly loop: WakeableLoop;

  constructor(private readonly options: DelivererOptions) {
    this.loop = new WakeableLoop(options.pollMs, (error) =>
      options.logger.warn({ err: String(error) }, 'delivery pass failed; trying again'),
    );
  }

  /** Delivers until `signal` aborts, then waits for the calls under way. */
  async run(signal: AbortSignal): Promise<void> {
    await this.loop.run(signal, async () => (await this.pass()) > 0);
    while (this.inFlight.size > 0) await pause(20);
  }

  /** New deliveries are owed: look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Claims what is due and starts its calls; answers how many were claimed. */
  private async pass(): Promise<number> {
    const hold = this.options.timeoutMs * 2 + 1_000;
    const due = (await this.options.deliveries.claim(BATCH, hold)).filter(
      (each) => !this.inFlight.has(each.subscriptionId),
    );
    for (const delivery of due) {
      this.inFlight.add(delivery.subscriptionId);
      void this.deliver(delivery).finally(() => {
        this.inFlight.delete(delivery.subscriptionId);
        this.wake();
      });
    }
    return due.length;
  }

  private async deliver(delivery: Delivery): Promise<void> {
    const { deliveries } = this.options;
    const subscription = await this.options.subscriptions.get(delivery.subscriptionId);
    // Only webhook subscriptions are owed deliveries.
    if (!subscription?.url) return;
    const url = subscription.url;
    const now = new Date();
    let error: string | undefined;
    try {
      error = await this.options.targets.problem(url);
      if (!error) {
        const request = webhookRequest(subscription, delivery, now);
        const response = await fetch(url, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        await response.body?.cancel();
        if (response.status < 200 || response.status >= 300)
          error = `the receiver answered ${response.status}`;
      }
    } catch (failure) {
      error = failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
    }
    const lagMs = Date.now() - Date.parse(delivery.eventTime);
    if (!error) {
      await deliveries.delivered(delivery.id);
      this.options.observe?.('delivered', delivery.attempts + 1, lagMs);
      return;
    }
    const next = nextAttempt(
      delivery.attempts + 1,
      new Date(),
      new Date(delivery.deadlineAt),
      this.options.retry,
    );
    await deliveries.failed(delivery.id, error, next);
    this.options.observe?.(next ? 'retry' : 'dead', delivery.attempts + 1, lagMs);
    if (!next)
      this.options.logger.warn(
        { subscription: delivery.subscriptionId, event: delivery.eventId, error },
        'delivery dead-lettered after its last attempt',
      );
  }
}
