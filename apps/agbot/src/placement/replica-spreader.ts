/**
 * Chooses which candidates hold a policy's replicas: one replica per node, spread over failure
 * domains (racks; a node without a rack is a domain of its own), keeping every replica that may
 * stay where it is. Existing replicas are never moved only to even out racks — a move restarts
 * a workload — so spreading applies to the replicas being added; when replicas are removed the
 * most crowded domains give them up first. Ties are broken by a hash of the policy and the node
 * (or domain), so that different policies do not all pile onto the same nodes.
 */
import { MinHeap } from './min-heap';

/** What the spreader reads of a node; the hashes are computed once per node (see `fnv1a`). */
export interface SpreadNode {
  readonly domain: string;
  readonly domainHash: number;
  readonly keyHash: number;
}

export interface SpreadRequest {
  /** Tie-breaking seed, e.g. `fnv1a` of the policy's key. */
  readonly seed: number;
  readonly replicas: number;
  /** Keys of the nodes that may hold a replica (a Set, or a Map keyed by them). */
  readonly candidates: { has(key: string): boolean; keys(): Iterable<string> };
  /** Keys of the nodes that hold one now (any not among the candidates lose it). */
  readonly holders: Iterable<string>;
  readonly nodeOf: (key: string) => SpreadNode;
  /** Whether a candidate may take a new replica (holders keep theirs); every one when absent. */
  readonly fits?: (key: string) => boolean;
}

/** Below this many additions, a linear scan per addition beats building per-domain queues. */
const SCAN_LIMIT = 4;

interface Free {
  readonly key: string;
  readonly rank: number;
}

interface DomainSlot {
  readonly domain: string;
  readonly rank: number;
  load: number;
  readonly free: Free[];
  next: number;
}

export function spreadReplicas(request: SpreadRequest): Set<string> {
  const { candidates } = request;
  const kept = new Set<string>();
  for (const key of request.holders) if (candidates.has(key)) kept.add(key);
  if (kept.size > request.replicas) return shrink(kept, request);
  if (kept.size === request.replicas) return kept;

  const loads = new Map<string, number>();
  for (const key of kept) {
    const { domain } = request.nodeOf(key);
    loads.set(domain, (loads.get(domain) ?? 0) + 1);
  }
  return request.replicas - kept.size <= SCAN_LIMIT
    ? fillByScan(kept, loads, request)
    : fillByDomain(kept, loads, request);
}

/** Adds one replica at a time: the free node of the least-loaded domain, ties by rank. */
function fillByScan(kept: Set<string>, loads: Map<string, number>, request: SpreadRequest): Set<string> {
  while (kept.size < request.replicas) {
    let best: string | undefined;
    let bestNode: SpreadNode | undefined;
    let bestLoad = 0;
    let bestDomainRank = 0;
    let bestRank = 0;
    for (const key of request.candidates.keys()) {
      if (kept.has(key) || request.fits?.(key) === false) continue;
      const node = request.nodeOf(key);
      const load = loads.get(node.domain) ?? 0;
      const domainRank = rank(request.seed, node.domainHash);
      const nodeRank = rank(request.seed, node.keyHash);
      if (
        best === undefined ||
        bestNode === undefined ||
        load < bestLoad ||
        (load === bestLoad &&
          (domainRank < bestDomainRank ||
            (domainRank === bestDomainRank &&
              (node.domain < bestNode.domain ||
                (node.domain === bestNode.domain &&
                  (nodeRank < bestRank || (nodeRank === bestRank && key < best)))))))
      ) {
        best = key;
        bestNode = node;
        bestLoad = load;
        bestDomainRank = domainRank;
        bestRank = nodeRank;
      }
    }
    if (best === undefined || bestNode === undefined) break;
    kept.add(best);
    loads.set(bestNode.domain, bestLoad + 1);
  }
  return kept;
}

/** Adds many replicas: per-domain queues of free nodes, and a heap of domains by load. */
function fillByDomain(kept: Set<string>, loads: Map<string, number>, request: SpreadRequest): Set<string> {
  const slots = new Map<string, DomainSlot>();
  for (const key of request.candidates.keys()) {
    if (kept.has(key) || request.fits?.(key) === false) continue;
    const node = request.nodeOf(key);
    let slot = slots.get(node.domain);
    if (!slot) {
      slot = {
        domain: node.domain,
        rank: rank(request.seed, node.domainHash),
        load: loads.get(node.domain) ?? 0,
        free: [],
        next: 0,
      };
      slots.set(node.domain, slot);
    }
    slot.free.push({ key, rank: rank(request.seed, node.keyHash) });
  }
  const open = [...slots.values()];
  for (const slot of open) if (slot.free.length > 1) slot.free.sort(byRank);
  const heap = new MinHeap<DomainSlot>(
    (a, b) =>
      a.load < b.load ||
      (a.load === b.load && (a.rank < b.rank || (a.rank === b.rank && a.domain < b.domain))),
    open,
  );
  while (kept.size < request.replicas) {
    const slot = heap.pop();
    if (!slot) break;
    kept.add((slot.free[slot.next] as Free).key);
    slot.next++;
    slot.load++;
    if (slot.next < slot.free.length) heap.push(slot);
  }
  return kept;
}

/** Drops replicas from the most crowded domains until `replicas` remain. */
function shrink(kept: Set<string>, request: SpreadRequest): Set<string> {
  const byDomain = new Map<string, Free[]>();
  for (const key of kept) {
    const node = request.nodeOf(key);
    const list = byDomain.get(node.domain) ?? [];
    list.push({ key, rank: rank(request.seed, node.keyHash) });
    byDomain.set(node.domain, list);
  }
  const heap = new MinHeap<{ domain: string; members: Free[] }>(
    (a, b) =>
      a.members.length > b.members.length || (a.members.length === b.members.length && a.domain > b.domain),
    [...byDomain].map(([domain, members]) => ({ domain, members: members.sort(byRank) })),
  );
  let excess = kept.size - request.replicas;
  while (excess > 0) {
    const crowded = heap.pop();
    if (!crowded) break;
    const dropped = crowded.members.pop();
    if (dropped) kept.delete(dropped.key);
    excess--;
    if (crowded.members.length > 0) heap.push(crowded);
  }
  return kept;
}

/** FNV-1a of a string: computed once per node, domain and policy. */
export function fnv1a(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A stable pseudo-random rank of a node or domain for one policy (a murmur3 finalizer). */
function rank(seed: number, hash: number): number {
  let h = (seed ^ hash) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function byRank(a: Free, b: Free): number {
  return a.rank - b.rank || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}
