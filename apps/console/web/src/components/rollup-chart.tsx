/** A policy's counts by status over time: one line per status, on a shared time axis. */
import type { RollupPoint } from '../model/rollup-over-time';

const WIDTH = 1000;
const HEIGHT = 220;
const PAD = 28;
/** A colour of its own for each status, so that lines that cross stay apart. */
const STATUS_COLOURS: Record<string, string> = {
  waiting: '#9aa5b1',
  paused: '#c9a227',
  downloading: '#5b8def',
  downloaded: '#2f5fb3',
  'ha-waiting': '#a259d9',
  initiated: '#e08a00',
  successful: '#1e7b46',
  'no-action-required': '#6fbf73',
  conflict: '#862e9c',
  'download-failed': '#d9480f',
  'precheck-failed': '#c2255c',
  failed: '#b3261e',
  'rolling-back': '#e56b6f',
  'rolled-back': '#9a5b00',
  'rollback-failed': '#7f1d1d',
  reset: '#495057',
};
const colourOf = (status: string) => STATUS_COLOURS[status] ?? '#6b7280';

export function RollupChart({ points }: { points: RollupPoint[] }) {
  const latest = points.at(-1);
  if (points.length < 2 || !latest) return null;
  const statuses = [...new Set(points.flatMap((point) => Object.keys(point.counts)))].filter(
    (status) => status !== 'unknown',
  );
  const times = points.map((point) => Date.parse(point.at));
  const [first, last] = [Math.min(...times), Math.max(...times)];
  const most = Math.max(1, ...points.flatMap((point) => Object.values(point.counts)));
  const x = (time: number) => PAD + ((time - first) / Math.max(1, last - first)) * (WIDTH - 2 * PAD);
  const y = (count: number) => HEIGHT - PAD - (count / most) * (HEIGHT - 2 * PAD);
  // Counts hold until the next point: steps, not slopes.
  const path = (status: string) =>
    points
      .map((point, index) => {
        const count = point.counts[status] ?? 0;
        const at = x(Date.parse(point.at));
        return index === 0 ? `M${at},${y(count)}` : `H${at}V${y(count)}`;
      })
      .join('');
  return (
    <figure className="chart">
      <figcaption>Nodes by status over time</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Nodes by status over time">
        <line x1={PAD} y1={HEIGHT - PAD} x2={WIDTH - PAD} y2={HEIGHT - PAD} className="axis" />
        <text x={PAD} y={HEIGHT - 8} className="axis-label">
          {new Date(first).toLocaleTimeString()}
        </text>
        <text x={WIDTH - PAD} y={HEIGHT - 8} className="axis-label" textAnchor="end">
          {new Date(last).toLocaleTimeString()}
        </text>
        <text x={4} y={PAD} className="axis-label">
          {most}
        </text>
        {statuses.map((status) => (
          <path key={status} d={path(status)} className="series" style={{ stroke: colourOf(status) }} />
        ))}
      </svg>
      <ul className="legend">
        {statuses.map((status) => (
          <li key={status}>
            <span className="swatch" style={{ background: colourOf(status) }} /> {status}{' '}
            {latest.counts[status] ?? 0}
          </li>
        ))}
      </ul>
    </figure>
  );
}
