/**
 * What a page of the change feed tells the agent: the org's management policies are kept up to
 * date in place, and the rest is news for the agent to act on — packages to list again, node
 * changes to tell from its own status writes, policies an admin reset for a retry.
 */
import { isChangeOf } from '@careen/contracts';
import { type FeedChange, type ManagementPolicy } from '../exchange/exchange.types';

export interface FeedNews {
  packagesChanged: boolean;
  /** `updatedAt` of each node change, to tell the agent's own status writes from others' changes. */
  nodeUpdates: string[];
  nodeDeleted: boolean;
  /** Policies whose status for this node an admin reset. */
  resets: string[];
}

export function applyChanges(
  changes: readonly FeedChange[],
  policies: Record<string, ManagementPolicy>,
): FeedNews {
  const news: FeedNews = { packagesChanged: false, nodeUpdates: [], nodeDeleted: false, resets: [] };
  for (const change of changes) {
    if (isChangeOf(change, 'managementPolicy')) {
      if (change.operation === 'deleted') delete policies[change.resourceId];
      else if (change.data) policies[change.resourceId] = change.data;
    } else if (isChangeOf(change, 'agentPackage')) {
      news.packagesChanged = true;
    } else if (isChangeOf(change, 'node')) {
      if (change.operation === 'deleted') news.nodeDeleted = true;
      else if (change.data) news.nodeUpdates.push(change.data.updatedAt);
    } else if (isChangeOf(change, 'managementStatus')) {
      if (change.data?.status === 'reset') news.resets.push(change.data.nmp);
    }
  }
  return news;
}
