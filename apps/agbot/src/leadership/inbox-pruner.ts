/** Keeps the agbot's record of handled changes from growing without end (on the leader). */
import { ProcessedMessages, pruneHandledMessages } from '@careen/persistence';
import { SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { type LeaderTask } from './leader-task';

@Injectable()
export class InboxPruner implements LeaderTask {
  constructor(
    private readonly processed: ProcessedMessages,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
  ) {}

  run(signal: AbortSignal): Promise<void> {
    return pruneHandledMessages(this.processed, signal, (error) =>
      this.logger.warn({ err: String(error) }, 'pruning handled changes failed'),
    );
  }
}
