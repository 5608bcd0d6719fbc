import { type BusLogger } from '@careen/bus';
import { DomainError } from '@careen/contracts';

/**
 * Runs a message's handler for which a domain refusal is an answer, not a failure: it is logged
 * and the message acknowledged, since asking the bus again would not change it. Anything else is
 * thrown, for the message to be delivered again.
 */
export async function refusalsAcknowledged(
  logger: BusLogger,
  subject: string,
  what: string,
  handle: () => Promise<unknown>,
): Promise<void> {
  try {
    await handle();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    logger.warn({ subject, code: error.code, reason: error.message }, what);
  }
}
