/** One node: its status, its workloads (desired and running), its management statuses and upgrade history. */
import { useCallback } from 'react';
import { read, type Clients } from '../api/clients';
import { Badge } from '../components/badge';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { Ago, When } from '../components/time';
import { useConsole } from '../live/console-context';
import { useLive } from '../live/use-live';
import { useNow } from '../live/use-now';
import { nodeRow } from '../model/fleet';
import { latestPerPolicy } from '../model/latest-per-policy';
import { hrefOf } from '../routing/route';

async function loadNode(clients: Clients, org: string, node: string) {
  const path = { org, id: node };
  const [found, desired, history, upgrades] = await Promise.all([
    read(clients.exchange.GET('/v1/orgs/{org}/nodes/{id}', { params: { path } }), 'exchange'),
    read(clients.exchange.GET('/v1/orgs/{org}/nodes/{id}/workloads', { params: { path } }), 'exchange'),
    read(
      clients.exchange.GET('/v1/orgs/{org}/nodes/{id}/history', { params: { path, query: { limit: 100 } } }),
      'exchange',
    ),
    // Single-node upgrades are the orchestrator's; the page shows the rest without them.
    read(
      clients.orchestrator.GET('/v1/upgrades', { params: { query: { org, node_id: node, limit: 50 } } }),
      'deployment orchestrator',
    ).catch(() => undefined),
  ]);
  return { found, desired, history, upgrades };
}

type Loaded = Awaited<ReturnType<typeof loadNode>>;

export function NodeView({ node }: { node: string }) {
  const { clients, org } = useConsole();
  const load = useCallback(() => loadNode(clients, org, node), [clients, org, node]);
  const details = useLive(load, { resources: ['node', 'managementStatus'] });

  return (
    <section aria-labelledby="node-title">
      <p>
        <a href={hrefOf({ view: 'fleet' })}>← Fleet</a>
      </p>
      <h1 id="node-title">Node {node}</h1>
      {details.error && <ProblemNotice error={details.error} what={`read node ${node}`} />}
      {!details.data && !details.error && <Loading what={`node ${node}`} />}
      {details.data && <NodeDetails {...details.data} />}
    </section>
  );
}

function NodeDetails({ found, desired, history, upgrades }: Loaded) {
  const row = nodeRow(found, useNow());
  const statuses = latestPerPolicy(history.items);
  const running = found.status?.workloads ?? [];
  return (
    <>
      <dl className="facts">
        <dt>Condition</dt>
        <dd>
          <Badge state={row.connectivity} /> {row.inMaintenance && <Badge state="maintenance" />}{' '}
          {row.cordoned && <Badge state="cordoned" />}
        </dd>
        <dt>Agent version</dt>
        <dd>
          {row.version ?? 'not reported'}
          {row.failedVersion && <span className="bad-text"> ({row.failedVersion} failed)</span>}
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Ago at={row.lastSeen} />
        </dd>
        <dt>HA group</dt>
        <dd>{found.haGroup ?? 'none'}</dd>
        <dt>Rack</dt>
        <dd>{found.rack ?? 'none'}</dd>
        <dt>Labels</dt>
        <dd>
          {Object.keys(found.labels).length === 0
            ? 'none'
            : Object.entries(found.labels).map(([key, value]) => (
                <code key={key} className="label">
                  {key}={value}
                </code>
              ))}
        </dd>
      </dl>

      <h2>Workloads</h2>
      {desired.items.length === 0 && running.length === 0 ? (
        <Empty>No deployment policy places a workload on this node.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Deployment policy</th>
              <th scope="col">Service</th>
              <th scope="col">Desired version</th>
              <th scope="col">Running</th>
            </tr>
          </thead>
          <tbody>
            {desired.items.map((workload) => {
              const actual = running.find(
                (entry) =>
                  entry.deploymentPolicy === workload.deploymentPolicy &&
                  entry.service.url === workload.service.url,
              );
              return (
                <tr key={`${workload.deploymentPolicy}:${workload.service.url}`}>
                  <th scope="row">{workload.deploymentPolicy}</th>
                  <td>{workload.service.url}</td>
                  <td>{workload.service.version}</td>
                  <td>
                    {actual ? (
                      <>
                        {actual.service.version} {actual.state && <Badge state={actual.state} />}
                      </>
                    ) : (
                      <span className="muted">not reported</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}

      <h2>Management statuses</h2>
      {statuses.length === 0 ? (
        <Empty>No management policy has run on this node.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Policy</th>
              <th scope="col">Status</th>
              <th scope="col">Version</th>
              <th scope="col">Since</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {statuses.map((status) => (
              <tr key={status.nmp}>
                <th scope="row">
                  <a href={hrefOf({ view: 'policy', policy: status.nmp })}>{status.nmp}</a>
                </th>
                <td>
                  <Badge state={status.event} />
                </td>
                <td>{status.version ?? '–'}</td>
                <td>
                  <Ago at={status.at} />
                </td>
                <td className="bad-text">{status.detail ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Upgrade history</h2>
      <UpgradeHistory history={history.items} upgrades={upgrades?.items ?? []} />
    </>
  );
}

function UpgradeHistory({
  history,
  upgrades,
}: {
  history: Loaded['history']['items'];
  upgrades: NonNullable<Loaded['upgrades']>['items'];
}) {
  const steps = history.filter((entry) => entry.kind === 'status');
  if (steps.length === 0 && upgrades.length === 0)
    return <Empty>This node has not been upgraded by a policy or a single-node upgrade.</Empty>;
  return (
    <ol className="timeline">
      {upgrades.map((upgrade) => (
        <li key={upgrade.id}>
          <When at={upgrade.created_at} /> single-node upgrade {upgrade.from_version ?? '?'} →{' '}
          {upgrade.to_version} <Badge state={upgrade.state} />{' '}
          {upgrade.error && <span className="bad-text">{upgrade.error}</span>}
        </li>
      ))}
      {steps.map((entry) => (
        <li key={entry.id}>
          <When at={entry.at} /> {entry.nmp}: <Badge state={entry.event} />
          {entry.version && ` ${entry.fromVersion ? `${entry.fromVersion} → ` : ''}${entry.version}`}
          {entry.detail && <span className="bad-text"> {entry.detail}</span>}
        </li>
      ))}
    </ol>
  );
}
