/**
 * The nodes a rollout would take below the agent version they run. Agents go down only for a
 * policy that allows it, and answer `no-action-required` otherwise, which a phase counts as
 * done: without the operator's word such a rollout would complete with those nodes left where
 * they were, so it is refused before it starts, naming them. Pure: the nodes come in.
 */
import { type FleetNode } from '../fleet/fleet-gateway';
import { isDowngrade } from '../upgrades/upgrade-states';

export interface DowngradedNode {
  node_id: string;
  running: string;
}

/** Of `chosen`, the nodes that run a version above `version`, in the order given. */
export function downgradedNodes(
  nodes: readonly Pick<FleetNode, 'id' | 'agentVersion'>[],
  chosen: readonly string[],
  version: string,
): DowngradedNode[] {
  const running = new Map(nodes.map((node) => [node.id, node.agentVersion]));
  return chosen.flatMap((node) => {
    const at = running.get(node) ?? null;
    return at !== null && isDowngrade(at, version) ? [{ node_id: node, running: at }] : [];
  });
}
