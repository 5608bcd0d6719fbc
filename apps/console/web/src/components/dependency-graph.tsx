/** A rollout's groups drawn stage by stage, each with its phase and progress, joined by their dependencies. */
import { BOX, layoutGraph } from '../model/graph-layout';

export interface GraphGroupState {
  name: string;
  depends_on: string[];
  critical: boolean;
  phase: string;
  nodes: number;
  successful: number;
  failed: number;
}

const PHASE_TONES: Record<string, string> = {
  waiting: 'plain',
  preparing: 'busy',
  deploying: 'busy',
  succeeded: 'good',
  failed: 'bad',
  cancelled: 'warn',
};

export function DependencyGraph({ stages, groups }: { stages: string[][]; groups: GraphGroupState[] }) {
  const layout = layoutGraph(stages, groups);
  const byName = new Map(groups.map((group) => [group.name, group]));
  const margin = 8;
  return (
    <figure className="graph">
      <figcaption>Groups and their dependencies, stage by stage</figcaption>
      <svg
        viewBox={`${-margin} ${-margin} ${layout.width + 2 * margin} ${layout.height + 2 * margin}`}
        width={layout.width + 2 * margin}
        role="img"
        aria-label={`Dependency graph of ${groups.length} groups in ${stages.length} stages`}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="10"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto"
          >
            <path d="M0,0L10,5L0,10z" className="edge-head" />
          </marker>
        </defs>
        {layout.edges.map((edge) => (
          <path
            key={`${edge.from}>${edge.to}`}
            className="edge"
            markerEnd="url(#arrow)"
            d={`M${edge.x1},${edge.y1} C${edge.x1 + BOX.columnGap / 2},${edge.y1} ${edge.x2 - BOX.columnGap / 2},${edge.y2} ${edge.x2},${edge.y2}`}
          />
        ))}
        {layout.groups.map((placed) => {
          const group = byName.get(placed.name);
          if (!group) return null;
          const done = group.nodes === 0 ? 0 : group.successful / group.nodes;
          return (
            <g key={placed.name} transform={`translate(${placed.x},${placed.y})`} data-group={group.name}>
              <rect
                width={BOX.width}
                height={BOX.height}
                rx={6}
                className={`box tone-${PHASE_TONES[group.phase] ?? 'plain'}`}
              />
              <text x={10} y={20} className="box-title">
                {group.name}
                {group.critical ? ' ★' : ''}
              </text>
              <text x={10} y={38} className="box-text">
                {group.phase} · {group.successful}/{group.nodes}
                {group.failed > 0 ? ` · ${group.failed} failed` : ''}
              </text>
              <rect x={10} y={44} width={BOX.width - 20} height={4} className="progress-track" />
              <rect x={10} y={44} width={(BOX.width - 20) * done} height={4} className="progress-done" />
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
