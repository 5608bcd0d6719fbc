/** Reading rollout history (a node's or a policy's), newest first, page after page. */
import { type Exchange } from '@careen/api-client';
import { type Column } from '../output/output';
import { wholeNumber } from './whole-number';

export type HistoryEntry = Exchange.components['schemas']['HistoryEntryResponse'];
type HistoryPage = Exchange.components['schemas']['HistoryPageResponse'];

export const HISTORY_COLUMNS: readonly Column<HistoryEntry>[] = [
  { header: 'AT', value: (entry) => entry.at },
  { header: 'POLICY', value: (entry) => entry.nmp },
  { header: 'NODE', value: (entry) => entry.node ?? '(policy)' },
  { header: 'ATTEMPT', value: (entry) => entry.attempt },
  { header: 'EVENT', value: (entry) => entry.event },
  {
    header: 'VERSION',
    value: (entry) =>
      entry.version ? (entry.fromVersion ? `${entry.fromVersion} → ${entry.version}` : entry.version) : null,
  },
  { header: 'BY', value: (entry) => entry.actor },
  { header: 'DETAIL', value: (entry) => entry.detail },
];

export const historyLimit = wholeNumber(1, 100_000);

/**
 * Up to `limit` entries of a history, newest first, read a page at a time.
 * @param page reads the page of at most `limit` entries older than `before`
 */
export async function readHistory(
  limit: number,
  page: (query: { limit: number; before?: string }) => Promise<HistoryPage>,
): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  for (let before: string | undefined; entries.length < limit;) {
    const read = await page({ limit: Math.min(1000, limit - entries.length), before });
    entries.push(...read.items);
    if (!read.next) break;
    before = read.next;
  }
  return entries;
}
