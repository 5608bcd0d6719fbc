/**
 * Handles the exchange changes from CAREEN_CHANGES that have arrived together: the mirror
 * applies each and the listeners react, in stream order, in one transaction for the lot (a
 * fleet's statuses come by the thousand, and each transaction of its own cost the agbot two
 * round trips and a record of its own). A change a listener needs handled alone is given a
 * transaction of its own, between those of the changes around it. Each change is handled once,
 * even when the bus delivers it again.
 */
import { type ChangePayload } from '@careen/contracts';
import { type ProcessedMessages } from '@careen/persistence';
import { type ChangeListener } from './change-listener';
import { type ExchangeMirror } from './exchange-mirror';

export const CHANGES_CONSUMER = 'agbot-changes';

/** A change as the bus delivered it, with its CloudEvent id (`exchange-<n>`). */
export interface DeliveredChange {
  eventId: string;
  change: ChangePayload;
}

/** `exchange-<n>` → n: the exchange's commit-ordered change id. */
export function exchangeChangeId(eventId: string): number {
  const match = /^exchange-(\d+)$/.exec(eventId);
  if (!match) throw new Error(`not an exchange change id: ${eventId}`);
  return Number(match[1]);
}

export class MirrorChangeHandler {
  constructor(
    private readonly processed: ProcessedMessages,
    private readonly mirror: ExchangeMirror,
    private readonly listeners: readonly ChangeListener[],
  ) {}

  async handleAll(delivered: readonly DeliveredChange[]): Promise<void> {
    let together: DeliveredChange[] = [];
    for (const each of delivered) {
      if (!this.listeners.some((listener) => listener.alone?.(each.change))) {
        together.push(each);
        continue;
      }
      await this.applyTogether(together);
      together = [];
      await this.applyTogether([each]);
    }
    await this.applyTogether(together);
  }

  private async applyTogether(delivered: readonly DeliveredChange[]): Promise<void> {
    if (delivered.length === 0) return;
    const applied: ChangePayload[] = [];
    await this.processed.applyEachOnce(
      CHANGES_CONSUMER,
      delivered.map(({ eventId }) => eventId),
      async (manager, fresh) => {
        for (const { eventId, change } of delivered) {
          // A change delivered twice in one batch is handled the first time.
          if (!fresh.delete(eventId)) continue;
          // A change older than what the mirror holds tells the listeners nothing new either.
          if (!(await this.mirror.apply(manager, change, exchangeChangeId(eventId)))) continue;
          applied.push(change);
          for (const listener of this.listeners) await listener.onChange?.(change, manager);
        }
      },
    );
    for (const change of applied) for (const listener of this.listeners) listener.afterCommit?.(change);
  }
}
