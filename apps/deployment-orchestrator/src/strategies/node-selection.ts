/**
 * Which nodes a group's selectors choose, as Shipyard's node lookup does: within a selector the
 * criteria intersect (a node matches a criterion when it has any of the names, tags, labels or
 * racks listed), across selectors the matches unite, and an omitted or empty criterion is
 * ignored. A selector without criteria is dropped from a union with others (choosing every node
 * by accident is the dangerous reading); no selectors, or only such selectors, choose every node.
 */
import { type NodeSelector, selectsEveryNode } from '@careen/contracts';

/** What selectors look at, as the exchange records a node. */
export interface SelectableNode {
  id: string;
  tags: readonly string[];
  labels: Readonly<Record<string, string>>;
  rack: string | null;
  haGroup: string | null;
}

export function selectNodes<N extends SelectableNode>(
  selectors: readonly NodeSelector[],
  nodes: readonly N[],
): N[] {
  const narrowing = selectors.filter((selector) => !selectsEveryNode(selector));
  if (narrowing.length === 0) return [...nodes];
  return nodes.filter((node) => narrowing.some((selector) => matches(selector, node)));
}

function matches(selector: NodeSelector, node: SelectableNode): boolean {
  const { node_names, node_tags, node_labels, rack_names } = selector;
  return (
    (node_names.length === 0 || node_names.includes(node.id)) &&
    (node_tags.length === 0 || node_tags.some((tag) => node.tags.includes(tag))) &&
    (rack_names.length === 0 || (node.rack !== null && rack_names.includes(node.rack))) &&
    (node_labels.length === 0 ||
      node_labels.some((label) => Object.entries(label).every(([key, value]) => node.labels[key] === value)))
  );
}
