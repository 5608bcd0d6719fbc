/**
 * Which nodes a window, freeze or budget covers. The criteria intersect, as a maintenance
 * session's host selector's do: a node is covered when it has every label given, is in one of
 * the racks, one of the HA groups and one of the node ids listed; an omitted or empty criterion
 * is ignored, so a selector without criteria covers every node of its org.
 */
export interface DisruptionSelector {
  labels?: Record<string, string>;
  racks?: string[];
  haGroups?: string[];
  nodes?: string[];
}

/** What a selector looks at, as the exchange records a node. */
export interface SelectedNode {
  id: string;
  labels: Readonly<Record<string, string>>;
  rack: string | null;
  haGroup: string | null;
}

export function covers(selector: DisruptionSelector, node: SelectedNode): boolean {
  const { labels = {}, racks = [], haGroups = [], nodes = [] } = selector;
  return (
    Object.entries(labels).every(([key, value]) => node.labels[key] === value) &&
    (racks.length === 0 || (node.rack !== null && racks.includes(node.rack))) &&
    (haGroups.length === 0 || (node.haGroup !== null && haGroups.includes(node.haGroup))) &&
    (nodes.length === 0 || nodes.includes(node.id))
  );
}

/** The selector in words, for a refusal's reason: `site=ams, rack r1`, or `every node`. */
export function describeSelector(selector: DisruptionSelector): string {
  const parts = [
    ...Object.entries(selector.labels ?? {}).map(([key, value]) => `${key}=${value}`),
    ...listed('rack', selector.racks),
    ...listed('HA group', selector.haGroups),
    ...listed('node', selector.nodes),
  ];
  return parts.length === 0 ? 'every node' : parts.join(', ');
}

function listed(what: string, names: readonly string[] | undefined): string[] {
  if (!names || names.length === 0) return [];
  return [`${what}${names.length > 1 ? 's' : ''} ${names.join('|')}`];
}
