/**
 * Airship Shipyard's deployment-group processing, transcribed for comparison in tests: its node
 * lookup (`node_lookup.py`: a selector without criteria dropped from a union, none left meaning
 * every node), its manager (`deployment_group_manager.py`: networkx's topological order, each
 * node given to the first group in that order that selects it, criteria judged on a group's
 * full node set with every node not successful counted as failed, a failed group failing its
 * dependents), its criteria (`deployment_group.py`: none given, or no nodes, always pass) and
 * its loop (`drydock_nodes.py` `_process_deployment_groups`). Written from Shipyard's code, not
 * from Careen's, so that a test can run both on the same document and compare their ends.
 */
export type ShipyardStage = 'NOT_STARTED' | 'PREPARED' | 'DEPLOYED' | 'FAILED';

export interface ShipyardSelector {
  node_names?: string[];
  node_tags?: string[];
  rack_names?: string[];
}

export interface ShipyardGroup {
  name: string;
  critical: boolean;
  depends_on: string[];
  selectors: ShipyardSelector[];
  success_criteria?: {
    percent_successful_nodes?: number;
    minimum_successful_nodes?: number;
    maximum_failed_nodes?: number;
  };
}

export interface ShipyardNode {
  id: string;
  tags: readonly string[];
  rack: string | null;
}

export interface ShipyardEnd {
  groups: Record<string, ShipyardStage>;
  nodes: Record<string, ShipyardStage>;
  /** The nodes each group acted on, in the order of `prepare` then `deploy` calls. */
  sent: { group: string; phase: 'prepare' | 'deploy'; nodes: string[] }[];
  failed: boolean;
}

/** Shipyard's `NodeLookup.lookup` over an inventory, with Drydock's filter as Careen reads it. */
export function shipyardLookup(selectors: readonly ShipyardSelector[], inventory: readonly ShipyardNode[]) {
  const all = (selector: ShipyardSelector) =>
    !(selector.node_names?.length || selector.node_tags?.length || selector.rack_names?.length);
  const filters = (selectors.length === 0 ? [{}] : selectors).filter((selector) => !all(selector));
  if (filters.length === 0) return inventory.map((node) => node.id);
  return inventory
    .filter((node) =>
      filters.some(
        (filter) =>
          (!filter.node_names?.length || filter.node_names.includes(node.id)) &&
          (!filter.node_tags?.length || filter.node_tags.some((tag) => node.tags.includes(tag))) &&
          (!filter.rack_names?.length || (node.rack !== null && filter.rack_names.includes(node.rack))),
      ),
    )
    .map((node) => node.id);
}

/** networkx 3's `topological_sort` of a DiGraph built as `_generate_group_graph` builds it. */
function topologicalOrder(groups: readonly ShipyardGroup[]): string[] {
  const successors = new Map<string, string[]>(groups.map((group) => [group.name, []]));
  for (const group of groups)
    for (const parent of group.depends_on) {
      const children = successors.get(parent)!;
      if (!children.includes(group.name)) children.push(group.name);
    }
  const indegree = new Map(groups.map((group) => [group.name, 0]));
  for (const children of successors.values())
    for (const child of children) indegree.set(child, indegree.get(child)! + 1);
  const order: string[] = [];
  let generation = groups.map((group) => group.name).filter((name) => indegree.get(name) === 0);
  while (generation.length > 0) {
    order.push(...generation);
    const next: string[] = [];
    for (const name of generation)
      for (const child of successors.get(name)!) {
        indegree.set(child, indegree.get(child)! - 1);
        if (indegree.get(child) === 0) next.push(child);
      }
    generation = next;
  }
  return order;
}

function failedCriteria(
  group: ShipyardGroup,
  full: readonly string[],
  successes: ReadonlySet<string>,
): boolean {
  const criteria = group.success_criteria;
  if (!criteria || Object.keys(criteria).length === 0 || full.length === 0) return false;
  const all = new Set(full);
  const succeeded = [...all].filter((node) => successes.has(node)).length;
  const failed = all.size - succeeded;
  const percent = (succeeded / all.size) * 100;
  return (
    (criteria.percent_successful_nodes !== undefined && !(percent >= criteria.percent_successful_nodes)) ||
    (criteria.minimum_successful_nodes !== undefined && !(succeeded >= criteria.minimum_successful_nodes)) ||
    (criteria.maximum_failed_nodes !== undefined && !(failed <= criteria.maximum_failed_nodes))
  );
}

/** Runs the strategy; `succeeds(node, phase)` says whether a node acted on finishes that phase. */
export function runShipyard(
  groups: readonly ShipyardGroup[],
  inventory: readonly ShipyardNode[],
  succeeds: (node: string, phase: 'prepare' | 'deploy') => boolean,
): ShipyardEnd {
  const byName = new Map(groups.map((group) => [group.name, group]));
  const order = topologicalOrder(groups);
  const full = new Map(groups.map((group) => [group.name, shipyardLookup(group.selectors, inventory)]));
  const nodes: Record<string, ShipyardStage> = {};
  const actionable = new Map<string, string[]>();
  for (const name of order) {
    const known = new Set(Object.keys(nodes));
    actionable.set(
      name,
      full.get(name)!.filter((node) => !known.has(node)),
    );
    for (const node of full.get(name)!) nodes[node] = 'NOT_STARTED';
  }
  const stages: Record<string, ShipyardStage> = Object.fromEntries(
    groups.map((group) => [group.name, 'NOT_STARTED']),
  );
  const sent: ShipyardEnd['sent'] = [];
  const markFailed = (name: string): void => {
    stages[name] = 'FAILED';
    for (const child of groups.filter((group) => group.depends_on.includes(name))) markFailed(child.name);
  };
  const evaluate = (name: string, stage: 'PREPARED' | 'DEPLOYED'): boolean => {
    const successes = new Set(
      Object.entries(nodes)
        .filter(([, at]) => at === 'DEPLOYED' || (stage === 'PREPARED' && at === 'PREPARED'))
        .map(([node]) => node),
    );
    if (failedCriteria(byName.get(name)!, full.get(name)!, successes)) {
      markFailed(name);
      return false;
    }
    // The stage setter allows only NOT_STARTED → PREPARED → DEPLOYED; a failed group stays failed.
    if (stages[name] !== 'FAILED') stages[name] = stage;
    return true;
  };
  for (;;) {
    const name = order.find((each) => stages[each] === 'NOT_STARTED');
    if (name === undefined) break;
    const mine = actionable.get(name)!;
    if (mine.length === 0) {
      evaluate(name, 'PREPARED');
      evaluate(name, 'DEPLOYED');
      continue;
    }
    sent.push({ group: name, phase: 'prepare', nodes: mine });
    const prepared = mine.filter((node) => succeeds(node, 'prepare'));
    for (const node of prepared) nodes[node] = 'PREPARED';
    for (const node of mine) if (!prepared.includes(node)) nodes[node] = 'FAILED';
    if (!evaluate(name, 'PREPARED')) continue;
    if (prepared.length > 0) {
      sent.push({ group: name, phase: 'deploy', nodes: prepared });
      const deployed = prepared.filter((node) => succeeds(node, 'deploy'));
      for (const node of deployed) nodes[node] = 'DEPLOYED';
      for (const node of mine) if (!deployed.includes(node)) nodes[node] = 'FAILED';
    }
    evaluate(name, 'DEPLOYED');
  }
  return {
    groups: stages,
    nodes,
    sent,
    failed: groups.some((group) => group.critical && stages[group.name] === 'FAILED'),
  };
}
