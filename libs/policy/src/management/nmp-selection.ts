/**
 * Which nodes a node management policy selects, and when publishing it needs confirmation.
 *
 * A node is selected when it is listed in `nodes`, or uses a pattern the policy names (`*` =
 * any pattern), or — for a node without a pattern — is compatible both ways with the policy's
 * properties and constraints. Policy matching is used when the policy states constraints, or
 * when it names neither patterns nor nodes: a policy that only lists nodes (the deployment
 * orchestrator's kind) or only names patterns does not also reach every policy-based node
 * through its empty constraints.
 */
import { compilePolicy, isCompatible, type CompiledPolicy } from '../compatibility/policy-compatibility';
import { type Property } from '../properties/property.types';

export interface NmpSelector {
  org: string;
  enabled: boolean;
  patterns: readonly string[];
  nodes: readonly string[];
  constraints: readonly string[];
  properties: readonly Property[];
}

export interface SelectableNode {
  org: string;
  id: string;
  pattern: string | null;
  policy: { properties: readonly Property[]; constraints: readonly string[] };
}

export function usesPolicyMatching(nmp: NmpSelector): boolean {
  return nmp.constraints.length > 0 || (nmp.patterns.length === 0 && nmp.nodes.length === 0);
}

/** Why publishing this policy needs `allowDisruptive`, or undefined when it does not. */
export function disruptiveReason(nmp: NmpSelector): string | undefined {
  if (!nmp.enabled) return undefined;
  if (nmp.patterns.includes('*')) return 'selects every node that uses a pattern ("*")';
  if (nmp.constraints.length === 0 && nmp.patterns.length === 0 && nmp.nodes.length === 0) {
    return 'has no constraints, patterns or node list and so selects every node';
  }
  return undefined;
}

/** A selector compiled once, to test many nodes. */
export function compileSelector(nmp: NmpSelector): (node: SelectableNode) => boolean {
  const listed = new Set(nmp.nodes);
  const policy: CompiledPolicy | undefined = usesPolicyMatching(nmp)
    ? compilePolicy({ properties: nmp.properties, constraints: nmp.constraints })
    : undefined;
  return (node) => {
    if (node.org !== nmp.org) return false;
    if (listed.has(node.id)) return true;
    if (node.pattern) return nmp.patterns.some((reference) => patternMatches(reference, nmp.org, node));
    return policy !== undefined && isCompatible(policy, compilePolicy(node.policy));
  };
}

function patternMatches(reference: string, nmpOrg: string, node: SelectableNode): boolean {
  if (reference === '*') return true;
  return qualified(reference, nmpOrg) === qualified(node.pattern ?? '', node.org);
}

/** `pattern` → `org/pattern`, with the given default org. */
function qualified(pattern: string, defaultOrg: string): string {
  return pattern.includes('/') ? pattern : `${defaultOrg}/${pattern}`;
}
