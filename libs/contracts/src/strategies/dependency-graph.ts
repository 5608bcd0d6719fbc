/**
 * The groups' `depends_on` relation: its cycles, named group by group, and the stages in which
 * the groups run (a group's stage is one past the latest stage among its dependencies, so every
 * group of a stage may run once the stages before it have ended).
 */
interface Dependent {
  name: string;
  depends_on: readonly string[];
}

/**
 * A cycle as the names along it, each depending on the next, the first repeated at the end
 * (`a → b → a`), or undefined.
 */
export function findCycle(groups: readonly Dependent[]): string[] | undefined {
  const dependsOn = new Map(groups.map((group) => [group.name, group.depends_on]));
  const state = new Map<string, 'visiting' | 'done'>();
  const trail: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === 'done' || !dependsOn.has(name)) return undefined;
    if (state.get(name) === 'visiting') return [...trail.slice(trail.indexOf(name)), name];
    state.set(name, 'visiting');
    trail.push(name);
    for (const dependency of dependsOn.get(name)!) {
      const cycle = visit(dependency);
      if (cycle) return cycle;
    }
    trail.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const group of groups) {
    const cycle = visit(group.name);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * The groups' names stage by stage, in Shipyard's processing order (networkx's topological
 * generations): the first stage holds the groups without dependencies in declaration order;
 * each later one the groups whose last dependency was in the stage before, in the order that
 * stage's groups and then their dependents were declared. The graph must be acyclic.
 */
export function dependencyStages(groups: readonly Dependent[]): string[][] {
  const waitingOn = new Map(groups.map((group) => [group.name, new Set(group.depends_on).size]));
  const dependents = new Map<string, string[]>(groups.map((group) => [group.name, []]));
  for (const group of groups)
    for (const dependency of new Set(group.depends_on)) dependents.get(dependency)?.push(group.name);
  const stages: string[][] = [];
  let stage = groups.filter((group) => waitingOn.get(group.name) === 0).map((group) => group.name);
  while (stage.length > 0) {
    stages.push(stage);
    const next: string[] = [];
    for (const name of stage)
      for (const dependent of dependents.get(name) ?? []) {
        const left = waitingOn.get(dependent)! - 1;
        waitingOn.set(dependent, left);
        if (left === 0) next.push(dependent);
      }
    stage = next;
  }
  return stages;
}
