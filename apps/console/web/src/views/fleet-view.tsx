/** Fleet: every node of the org by agent version and condition, a chart and a filterable table. */
import { useCallback, useMemo, useState } from 'react';
import { read } from '../api/clients';
import { Badge } from '../components/badge';
import { BarChart } from '../components/bar-chart';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { Ago } from '../components/time';
import { useConsole } from '../live/console-context';
import { useLive } from '../live/use-live';
import { useNow } from '../live/use-now';
import {
  type Condition,
  filterRows,
  type FleetFilter,
  nodeRow,
  NO_FILTER,
  type NodeRow,
  summarize,
} from '../model/fleet';
import { hrefOf } from '../routing/route';

const CONDITIONS: { condition: Condition; label: string; tone: string }[] = [
  { condition: 'online', label: 'online', tone: 'good' },
  { condition: 'offline', label: 'offline', tone: 'warn' },
  { condition: 'unreported', label: 'never reported', tone: 'warn' },
  { condition: 'maintenance', label: 'in maintenance', tone: 'busy' },
  { condition: 'cordoned', label: 'cordoned', tone: 'warn' },
];

export function FleetView() {
  const { clients, org } = useConsole();
  const load = useCallback(
    () => read(clients.exchange.GET('/v1/orgs/{org}/nodes', { params: { path: { org } } }), 'exchange'),
    [clients, org],
  );
  const nodes = useLive(load, { resources: ['node'] });
  const [filter, setFilter] = useState<FleetFilter>(NO_FILTER);
  const now = useNow();
  const rows = useMemo(() => (nodes.data?.items ?? []).map((node) => nodeRow(node, now)), [nodes.data, now]);
  const summary = useMemo(() => summarize(rows), [rows]);
  const shown = useMemo(() => filterRows(rows, filter), [rows, filter]);
  const set = (change: Partial<FleetFilter>) => setFilter((before) => ({ ...before, ...change }));

  return (
    <section aria-labelledby="fleet-title">
      <h1 id="fleet-title">Fleet</h1>
      {nodes.error && <ProblemNotice error={nodes.error} what="read the nodes" />}
      {!nodes.data && !nodes.error && <Loading what="the nodes" />}
      {nodes.data && rows.length === 0 && (
        <Empty>
          Org {org} has no nodes yet. Register one with <code>careen node register</code>, or start an agent
          with <code>careen-agent</code>.
        </Empty>
      )}
      {rows.length > 0 && (
        <>
          <div className="charts">
            <BarChart
              title={`Agent versions (${summary.total} nodes)`}
              bars={summary.versions.map(({ version, count }) => ({
                key: version ?? 'none',
                label: version ?? 'not reported',
                count,
              }))}
              picked={filter.version}
              onPick={(version) => set({ version: filter.version === version ? '' : version })}
            />
            <BarChart
              title="Condition"
              bars={CONDITIONS.map(({ condition, label, tone }) => ({
                key: condition,
                label,
                count: summary.conditions[condition],
                tone,
              }))}
              picked={filter.condition}
              onPick={(condition) =>
                set({ condition: filter.condition === condition ? '' : (condition as Condition) })
              }
            />
          </div>
          <FleetFilters
            filter={filter}
            versions={summary.versions.map((entry) => entry.version)}
            onChange={set}
          />
          <NodeTable rows={shown} total={rows.length} />
        </>
      )}
    </section>
  );
}

function FleetFilters({
  filter,
  versions,
  onChange,
}: {
  filter: FleetFilter;
  versions: (string | null)[];
  onChange: (change: Partial<FleetFilter>) => void;
}) {
  return (
    <form className="filters" role="search" onSubmit={(event) => event.preventDefault()}>
      <label>
        Find{' '}
        <input
          type="search"
          placeholder="node, name or HA group"
          value={filter.text}
          onChange={(event) => onChange({ text: event.target.value })}
        />
      </label>
      <label>
        Version{' '}
        <select value={filter.version} onChange={(event) => onChange({ version: event.target.value })}>
          <option value="">any</option>
          {versions.map((version) => (
            <option key={version ?? 'none'} value={version ?? 'none'}>
              {version ?? 'not reported'}
            </option>
          ))}
        </select>
      </label>
      <label>
        Condition{' '}
        <select
          value={filter.condition}
          onChange={(event) => onChange({ condition: event.target.value as Condition | '' })}
        >
          <option value="">any</option>
          {CONDITIONS.map(({ condition, label }) => (
            <option key={condition} value={condition}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {(filter.text || filter.version || filter.condition) && (
        <button type="button" onClick={() => onChange(NO_FILTER)}>
          Clear
        </button>
      )}
    </form>
  );
}

function NodeTable({ rows, total }: { rows: NodeRow[]; total: number }) {
  if (rows.length === 0) return <Empty>No node matches the filter. Clear it to see all {total}.</Empty>;
  return (
    <div className="table-scroll">
      <table>
        <caption>{rows.length === total ? `${total} nodes` : `${rows.length} of ${total} nodes`}</caption>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">HA group</th>
            <th scope="col">Agent version</th>
            <th scope="col">Condition</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-node={row.id}>
              <th scope="row">
                <a href={hrefOf({ view: 'node', node: row.id })}>{row.id}</a>
                {row.name !== row.id && <div className="muted">{row.name}</div>}
              </th>
              <td>{row.haGroup ?? <span className="muted">none</span>}</td>
              <td data-cell="version">
                {row.version ?? <span className="muted">not reported</span>}
                {row.failedVersion && <div className="bad-text">{row.failedVersion} failed</div>}
              </td>
              <td>
                <Badge state={row.connectivity} /> {row.inMaintenance && <Badge state="maintenance" />}{' '}
                {row.cordoned && <Badge state="cordoned" />}
              </td>
              <td>
                <Ago at={row.lastSeen} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
