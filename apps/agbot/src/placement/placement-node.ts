/**
 * A node read once for matching: its policy compiled, its arch, failure domain and whether it
 * accepts workloads. Built when the node arrives or changes, reused for every policy.
 */
import { compilePolicy, type CompiledPolicy, type Property } from '@careen/policy';
import { acceptsWorkloads, failureDomain, nodeArch } from './node-availability';
import { type PlacementNode, scopedKey } from './placement.types';
import { fnv1a, type SpreadNode } from './replica-spreader';

export interface PreparedNode extends SpreadNode {
  readonly key: string;
  readonly node: PlacementNode;
  readonly policy: CompiledPolicy;
  readonly arch: string | undefined;
  readonly domain: string;
  /** Not cordoned and not under maintenance at the time it was prepared. */
  readonly available: boolean;
}

export function prepareNode(node: PlacementNode, now: Date): PreparedNode {
  const key = scopedKey(node.org, node.id);
  const domain = failureDomain(node);
  return {
    key,
    keyHash: fnv1a(key),
    domainHash: fnv1a(domain),
    node,
    policy: compilePolicy({
      name: `node ${node.org}/${node.id}`,
      properties: (node.policy?.properties ?? []) as readonly Property[],
      constraints: node.policy?.constraints ?? [],
    }),
    arch: nodeArch(node),
    domain,
    available: acceptsWorkloads(node, now),
  };
}
