/**
 * A strategy laid over the org's nodes as they are now, without running anything: the stages in
 * which the groups run, each group's nodes and the HA groups they belong to, which group sends
 * each node, nodes chosen by several groups or by none, and what an operator should know before
 * starting (groups that choose nothing, selectors that add nothing, nodes another management
 * policy already upgrades, criteria that can never pass). A rollout starts from the same plan.
 *
 * A node chosen by several groups is sent by the first of them in processing order, decided
 * here once, as Shipyard does when it loads a strategy: a later group counts it in its
 * criteria but never sends it, whatever became of it.
 */
import { dependencyStages, type DeploymentStrategy, selectsEveryNode } from '@careen/contracts';
import { type SelectableNode, selectNodes } from './node-selection';
import { impossibleCriteria } from './success-criteria';

export interface PlannedGroup {
  name: string;
  critical: boolean;
  depends_on: string[];
  /** Every node its selectors choose: its criteria are judged on all of them. */
  nodes: string[];
  /**
   * Of them, the nodes this group sends (no earlier group in processing order chose them);
   * absent in plans stored before it existed.
   */
  sends?: string[];
  ha_groups: string[];
  /** Set when the group's criteria cannot pass on its nodes whatever happens. */
  never_passes?: string;
}

export interface StrategyPlan {
  strategy: string;
  /** Group names stage by stage: the processing order, a stage's groups in declaration order. */
  stages: string[][];
  groups: PlannedGroup[];
  /** Nodes chosen by more than one group, with those groups and the one that sends the node. */
  overlapping: { node: string; groups: string[]; sent_by: string }[];
  /** Nodes of the org that no group chooses. */
  unselected: string[];
  /** Groups whose selectors choose no node: they pass whatever their criteria, as in Shipyard. */
  empty: string[];
  /**
   * What an operator should know before starting, one sentence each; absent in plans stored
   * before it existed.
   */
  warnings?: string[];
}

/** Management policies other than the rollout's own that already upgrade a node, by node. */
export type HeldNodes = ReadonlyMap<string, readonly string[]>;

export function planStrategy(
  strategy: DeploymentStrategy,
  nodes: readonly SelectableNode[],
  held: HeldNodes = new Map(),
): StrategyPlan {
  const stages = dependencyStages(strategy.groups);
  const chosenBy = new Map(strategy.groups.map((group) => [group.name, selectNodes(group.selectors, nodes)]));
  const sender = new Map<string, string>();
  for (const name of stages.flat())
    for (const node of chosenBy.get(name)!) if (!sender.has(node.id)) sender.set(node.id, name);
  const groupsOf = new Map<string, string[]>();
  const groups = strategy.groups.map((group): PlannedGroup => {
    const chosen = chosenBy.get(group.name)!;
    for (const node of chosen) groupsOf.set(node.id, [...(groupsOf.get(node.id) ?? []), group.name]);
    const never = impossibleCriteria(group.success_criteria, chosen.length);
    return {
      name: group.name,
      critical: group.critical,
      depends_on: group.depends_on,
      nodes: chosen.map((node) => node.id),
      sends: chosen.filter((node) => sender.get(node.id) === group.name).map((node) => node.id),
      ha_groups: [...new Set(chosen.flatMap((node) => (node.haGroup ? [node.haGroup] : [])))].sort(),
      ...(never && { never_passes: never }),
    };
  });
  const empty = groups.filter((group) => group.nodes.length === 0).map((group) => group.name);
  const planned = [...sender.keys()];
  return {
    strategy: strategy.name,
    stages,
    groups,
    overlapping: [...groupsOf]
      .filter(([, names]) => names.length > 1)
      .map(([node, names]) => ({ node, groups: names, sent_by: sender.get(node)! })),
    unselected: nodes.filter((node) => !groupsOf.has(node.id)).map((node) => node.id),
    empty,
    warnings: [
      ...(strategy.groups.length === 0 ? ['the strategy has no groups: a rollout of it sends nothing'] : []),
      ...strategy.groups
        .filter((group) => empty.includes(group.name))
        .map(
          (group) =>
            `group ${group.name}${group.critical ? ' (critical)' : ''} chooses no node: it passes whatever its criteria, as in Shipyard`,
        ),
      ...strategy.groups.flatMap((group) =>
        group.selectors.some((selector) => !selectsEveryNode(selector))
          ? group.selectors.flatMap((selector, index) =>
              selectsEveryNode(selector)
                ? [
                    `group ${group.name}: selector ${index + 1} has no criteria and is ignored beside the others (it does not choose every node)`,
                  ]
                : [],
            )
          : [],
      ),
      ...heldWarnings(planned, held),
    ],
  };
}

function heldWarnings(planned: readonly string[], held: HeldNodes): string[] {
  const byPolicies = new Map<string, string[]>();
  for (const node of planned) {
    const policies = held.get(node);
    if (!policies || policies.length === 0) continue;
    const key = [...policies].sort().join(', ');
    byPolicies.set(key, [...(byPolicies.get(key) ?? []), node]);
  }
  return [...byPolicies].map(
    ([policies, held]) =>
      `${held.length} node(s) already upgraded by management policy ${policies}, so their agents would refuse the rollout's (conflict): ${held.join(', ')}; remove or disable that policy first (careen nmp remove)`,
  );
}
