/** What the exchange's change stream holds, read straight from JetStream. */
import { type BusConnection } from '@careen/bus';
import { STREAMS } from '@careen/contracts';

/** How many messages the change stream holds about each org of `ids`, in that order. */
export async function changesPerOrg(bus: BusConnection, ids: readonly string[]): Promise<number[]> {
  const info = await bus.jsm.streams.info(STREAMS.changes.name, { subjects_filter: 'careen.changes.>' });
  const subjects = Object.entries(info.state.subjects ?? {});
  return ids.map((id) =>
    subjects
      .filter(([subject]) => subject.startsWith(`careen.changes.${id}.`))
      .reduce((sum, [, count]) => sum + count, 0),
  );
}
