/**
 * Where a rollout's dependency graph draws its groups: one column per stage (the groups that
 * may run together once the stages before them are done), groups stacked in their column, and
 * an edge from each group to each group that depends on it.
 */
export interface GraphGroup {
  name: string;
  depends_on: string[];
}

export interface PlacedGroup {
  name: string;
  x: number;
  y: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** Straight from the right edge of `from` to the left edge of `to`. */
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface GraphLayout {
  groups: PlacedGroup[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

export const BOX = { width: 168, height: 56, columnGap: 64, rowGap: 20 };

export function layoutGraph(stages: string[][], groups: GraphGroup[]): GraphLayout {
  const placed = new Map<string, PlacedGroup>();
  stages.forEach((stage, column) =>
    stage.forEach((name, row) =>
      placed.set(name, {
        name,
        x: column * (BOX.width + BOX.columnGap),
        y: row * (BOX.height + BOX.rowGap),
      }),
    ),
  );
  const edges: GraphEdge[] = [];
  for (const group of groups) {
    const to = placed.get(group.name);
    if (!to) continue;
    for (const dependency of group.depends_on) {
      const from = placed.get(dependency);
      if (!from) continue;
      edges.push({
        from: from.name,
        to: to.name,
        x1: from.x + BOX.width,
        y1: from.y + BOX.height / 2,
        x2: to.x,
        y2: to.y + BOX.height / 2,
      });
    }
  }
  const tallest = Math.max(0, ...stages.map((stage) => stage.length));
  return {
    groups: [...placed.values()],
    edges,
    width: Math.max(0, stages.length * (BOX.width + BOX.columnGap) - BOX.columnGap),
    height: Math.max(0, tallest * (BOX.height + BOX.rowGap) - BOX.rowGap),
  };
}
