/**
 * A deployment strategy as Airship Shipyard defines it (docs/domain.md, Deployment strategies
 * and rollouts): named groups of nodes, each
 * critical or not, depending on other groups, chosen by selectors, and judged by optional
 * success criteria. Field names are Shipyard's, so its documents are read unchanged.
 */

/** One selector: its criteria intersect; an empty list leaves that criterion out. */
export interface NodeSelector {
  node_names: string[];
  node_tags: string[];
  /** Each entry one label, `{key: value}`; a node matches one with that label set to that value. */
  node_labels: Record<string, string>[];
  rack_names: string[];
}

export interface SuccessCriteria {
  /** 0–100: the share of the group's nodes that must finish the phase successfully. */
  percent_successful_nodes?: number;
  minimum_successful_nodes?: number;
  maximum_failed_nodes?: number;
}

export interface StrategyGroup {
  name: string;
  critical: boolean;
  depends_on: string[];
  /** United; none, or an empty selector, means every node of the org. */
  selectors: NodeSelector[];
  success_criteria?: SuccessCriteria;
}

export interface DeploymentStrategy {
  name: string;
  groups: StrategyGroup[];
}

/** One thing wrong with a document, where it is (`data.groups[2].depends_on[0]`) and what. */
export interface StrategyProblem {
  path: string;
  problem: string;
}
