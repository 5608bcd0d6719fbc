/**
 * Handles one exchange change from CAREEN_CHANGES: the mirror applies it and the listeners
 * react, in one transaction, once per change even when the bus delivers it again.
 */
import { type ChangePayload } from '@careen/contracts';
import { type ProcessedMessages } from '@careen/persistence';
import { type ChangeListener } from './change-listener';
import { type ExchangeMirror } from './exchange-mirror';

export const CHANGES_CONSUMER = 'agbot-changes';

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

  async handle(eventId: string, change: ChangePayload): Promise<void> {
    const changeId = exchangeChangeId(eventId);
    let applied = false;
    await this.processed.applyOnce(CHANGES_CONSUMER, eventId, async (manager) => {
      // A change older than what the mirror holds tells the listeners nothing new either.
      if (!(await this.mirror.apply(manager, change, changeId))) return;
      applied = true;
      for (const listener of this.listeners) await listener.onChange?.(change, manager);
    });
    if (applied) for (const listener of this.listeners) listener.afterCommit?.(change);
  }
}
