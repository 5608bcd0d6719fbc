/**
 * Tells the exchange each node's desired workloads, a few nodes at a time, and marks them
 * delivered in batches: a leader that dies in between only makes its successor deliver those
 * again. A node the exchange no longer knows is forgotten; any other failure is retried by the
 * next round, since the entry stays unpublished.
 */
import { type JsonLogger } from '@careen/telemetry';
import { ApiError, dataOf } from '@careen/api-client';
import { type ExchangeClient } from '@careen/service';
import { type NodeWorkloads } from './placement.types';
import { type PlacementStore } from './placement-store';

const CONCURRENCY = 8;
const MARK_BATCH = 256;

export async function deliverWorkloads(
  entries: readonly NodeWorkloads[],
  exchange: ExchangeClient,
  store: PlacementStore,
  logger: JsonLogger,
): Promise<void> {
  let next = 0;
  let delivered: NodeWorkloads[] = [];
  const markDelivered = async (): Promise<void> => {
    const batch = delivered;
    delivered = [];
    await store.markPublished(batch);
  };
  const worker = async (): Promise<void> => {
    for (let entry = entries[next++]; entry; entry = entries[next++]) {
      try {
        await dataOf(
          exchange.api.PUT('/v1/orgs/{org}/nodes/{id}/workloads', {
            params: { path: { org: entry.org, id: entry.node } },
            body: { workloads: [...entry.workloads] },
          }),
        );
        delivered.push(entry);
        if (delivered.length >= MARK_BATCH) await markDelivered();
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          await store.forget(entry.org, entry.node);
        } else {
          logger.warn(
            { org: entry.org, node: entry.node, err: String(error) },
            'desired workloads not delivered; will retry',
          );
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await markDelivered();
}
