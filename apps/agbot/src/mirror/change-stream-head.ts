/**
 * The id of the newest exchange change on CAREEN_CHANGES. The exchange publishes a change only
 * after it has committed it, so a resync that reads the exchange after asking for this id sees
 * that change and every older one: its rows are stamped with the id, and the older changes the
 * stream still holds for the consumer leave them alone instead of rolling them back.
 */
import { headerLookup, type BusConnection } from '@careen/bus';
import { CE_HEADERS, STREAMS } from '@careen/contracts';
import { exchangeChangeId } from './mirror-change-handler';

export async function latestPublishedChangeId(bus: BusConnection): Promise<number> {
  const { state } = await bus.jsm.streams.info(STREAMS.changes.name);
  if (state.messages === 0) return 0;
  const newest = await bus.jsm.streams.getMessage(STREAMS.changes.name, { seq: state.last_seq });
  const id = newest && headerLookup(newest.header).get(CE_HEADERS.id);
  return id ? exchangeChangeId(id) : 0;
}
