/**
 * Keeps a service's record of handled messages from growing without end: records older than a
 * day are forgotten (the bus redelivers within minutes), once an hour, until `signal` aborts. A
 * failed round (the database away for a moment) is reported and tried again next hour.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { type ProcessedMessages } from './processed-messages';

const KEEP_MS = 24 * 3_600_000;
const EVERY_MS = 3_600_000;

export async function pruneHandledMessages(
  processed: ProcessedMessages,
  signal: AbortSignal,
  onError: (error: unknown) => void,
): Promise<void> {
  while (!signal.aborted) {
    await processed.prune(KEEP_MS).catch(onError);
    await pause(EVERY_MS, undefined, { signal }).catch(() => undefined);
  }
}
