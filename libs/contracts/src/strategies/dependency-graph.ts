/**
 * The groups' `depends_on` relation: its cycles, named group by group, and the stages in which
 * the groups may run (a group's stage is one past the latest stage among its dependencies, so
 * every group of a stage may run once the stages before it have succeeded).
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

/** The groups' names stage by stage, in declaration order within a stage; the graph must be acyclic. */
export function dependencyStages(groups: readonly Dependent[]): string[][] {
  const dependsOn = new Map(groups.map((group) => [group.name, group.depends_on]));
  const stageOf = new Map<string, number>();
  const stage = (name: string): number => {
    const known = stageOf.get(name);
    if (known !== undefined) return known;
    const found = Math.max(-1, ...(dependsOn.get(name) ?? []).map(stage)) + 1;
    stageOf.set(name, found);
    return found;
  };
  const stages: string[][] = [];
  for (const group of groups) (stages[stage(group.name)] ??= []).push(group.name);
  return stages;
}
