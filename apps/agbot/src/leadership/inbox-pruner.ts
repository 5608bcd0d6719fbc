/**
 * Keeps the agbot's record of handled changes from growing without end: the leader forgets
 * records older than a day (the bus redelivers within minutes), once an hour.
 */
import { ProcessedMessages } from '@careen/persistence';
import { SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as pause } from 'node:timers/promises';
import { type LeaderTask } from './leader-task';

const KEEP_MS = 24 * 3_600_000;
const EVERY_MS = 3_600_000;

@Injectable()
export class InboxPruner implements LeaderTask {
  constructor(
    private readonly processed: ProcessedMessages,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      // A failed round (the database away for a moment) is tried again next hour.
      await this.processed
        .prune(KEEP_MS)
        .catch((error: unknown) =>
          this.logger.warn({ err: String(error) }, 'pruning handled changes failed'),
        );
      await pause(EVERY_MS, undefined, { signal }).catch(() => undefined);
    }
  }
}
