/**
 * Enabling or disabling a management policy replaces it whole at the exchange: the body is the
 * policy as read, with only `enabled` changed. An enabled policy that selects every node may
 * upgrade every node at about the same time; like the CLI, the console asks before it and only
 * then sends `allowDisruptive: true`.
 */
import type { components } from '@careen/api-client/src/generated/exchange';

/** The fields of a policy as the exchange answers it that a replacement sends back. */
export type ReadPolicy = Pick<
  components['schemas']['ManagementPolicyResponse'],
  | 'label'
  | 'description'
  | 'constraints'
  | 'properties'
  | 'patterns'
  | 'nodes'
  | 'enabled'
  | 'agentUpgradePolicy'
  | 'failureThreshold'
>;

/** Whether the policy applies to every node of the org: a `*` pattern, or nothing that narrows it. */
export function selectsEveryNode(policy: Pick<ReadPolicy, 'constraints' | 'patterns' | 'nodes'>): boolean {
  if (policy.patterns.some((pattern) => pattern.trim() === '*')) return true;
  return policy.constraints.length === 0 && policy.patterns.length === 0 && policy.nodes.length === 0;
}

export function replacementBody(policy: ReadPolicy, enabled: boolean, allowDisruptive: boolean) {
  return {
    label: policy.label,
    description: policy.description,
    constraints: policy.constraints,
    properties: policy.properties,
    patterns: policy.patterns,
    nodes: policy.nodes,
    enabled,
    ...(policy.agentUpgradePolicy ? { agentUpgradePolicy: policy.agentUpgradePolicy } : {}),
    ...(policy.failureThreshold !== null ? { failureThreshold: policy.failureThreshold } : {}),
    ...(enabled && allowDisruptive ? { allowDisruptive: true } : {}),
  };
}
