/**
 * A strategy laid over the org's nodes as they are now, without running anything: the stages in
 * which the groups may run, each group's nodes and the HA groups they belong to, nodes chosen by
 * several groups or by none, and groups whose criteria can never pass. A rollout starts from the
 * same plan.
 */
import { dependencyStages } from '@careen/contracts';
import { type SelectableNode, selectNodes } from './node-selection';
import { type DeploymentStrategy } from '@careen/contracts';
import { impossibleCriteria } from './success-criteria';

export interface PlannedGroup {
  name: string;
  critical: boolean;
  depends_on: string[];
  nodes: string[];
  ha_groups: string[];
  /** Set when the group's criteria cannot pass on its nodes whatever happens. */
  never_passes?: string;
}

export interface StrategyPlan {
  strategy: string;
  /** Group names stage by stage: a stage's groups may run once every earlier stage has succeeded. */
  stages: string[][];
  groups: PlannedGroup[];
  /** Nodes chosen by more than one group, with those groups (each node is still sent once). */
  overlapping: { node: string; groups: string[] }[];
  /** Nodes of the org that no group chooses. */
  unselected: string[];
}

export function planStrategy(strategy: DeploymentStrategy, nodes: readonly SelectableNode[]): StrategyPlan {
  const groupsOf = new Map<string, string[]>();
  const groups = strategy.groups.map((group): PlannedGroup => {
    const chosen = selectNodes(group.selectors, nodes);
    for (const node of chosen) groupsOf.set(node.id, [...(groupsOf.get(node.id) ?? []), group.name]);
    const never = impossibleCriteria(group.success_criteria, chosen.length);
    return {
      name: group.name,
      critical: group.critical,
      depends_on: group.depends_on,
      nodes: chosen.map((node) => node.id),
      ha_groups: [...new Set(chosen.flatMap((node) => (node.haGroup ? [node.haGroup] : [])))].sort(),
      ...(never && { never_passes: never }),
    };
  });
  return {
    strategy: strategy.name,
    stages: dependencyStages(strategy.groups),
    groups,
    overlapping: [...groupsOf]
      .filter(([, names]) => names.length > 1)
      .map(([node, names]) => ({ node, groups: names })),
    unselected: nodes.filter((node) => !groupsOf.has(node.id)).map((node) => node.id),
  };
}
