/** Reading rollout history (a node's or a policy's), newest first, page after page. */
import { InvalidArgumentError } from 'commander';
import { type ExchangeClient } from '../http/exchange-client';
import { type Column } from '../output/output';

export interface HistoryEntry {
  id: string;
  nmp: string;
  node: string | null;
  kind: 'status' | 'policy';
  event: string;
  version: string | null;
  fromVersion: string | null;
  attempt: number | null;
  detail: string | null;
  actor: string | null;
  at: string;
}

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

export function historyLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000)
    throw new InvalidArgumentError('a whole number from 1 to 100000');
  return limit;
}

/** Up to `limit` entries of the history at `route` (which may carry a query already). */
export async function readHistory(
  client: ExchangeClient,
  route: string,
  limit: number,
): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  const separator = route.includes('?') ? '&' : '?';
  for (let before: string | null = null; entries.length < limit;) {
    const page: { items: HistoryEntry[]; next: string | null } = await client.get(
      `${route}${separator}limit=${Math.min(1000, limit - entries.length)}${before ? `&before=${before}` : ''}`,
    );
    entries.push(...page.items);
    if (!page.next) break;
    before = page.next;
  }
  return entries;
}
