/** Management policies: each policy of the org with its state and how its nodes are doing. */
import { useCallback } from 'react';
import { read, type Clients } from '../api/clients';
import { Badge } from '../components/badge';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { StatusCounts } from '../components/status-counts';
import { useConsole } from '../live/console-context';
import { useLive } from '../live/use-live';
import { hrefOf } from '../routing/route';

async function loadPolicies(clients: Clients, org: string) {
  const policies = await read(
    clients.exchange.GET('/v1/orgs/{org}/management-policies', { params: { path: { org } } }),
    'exchange',
  );
  return Promise.all(
    policies.items.map(async (policy) => ({
      policy,
      rollup: await read(
        clients.exchange.GET('/v1/orgs/{org}/management-policies/{name}/status', {
          params: { path: { org, name: policy.name } },
        }),
        'exchange',
      ),
    })),
  );
}

export function PoliciesView() {
  const { clients, org } = useConsole();
  const load = useCallback(() => loadPolicies(clients, org), [clients, org]);
  const policies = useLive(load, { resources: ['managementPolicy', 'managementStatus'] });
  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title">Management policies</h1>
      {policies.error && <ProblemNotice error={policies.error} what="read the management policies" />}
      {!policies.data && !policies.error && <Loading what="the management policies" />}
      {policies.data?.length === 0 && (
        <Empty>
          Org {org} has no management policies. Write one with <code>careen nmp new</code> and publish it with{' '}
          <code>careen nmp publish</code>.
        </Empty>
      )}
      {policies.data && policies.data.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Policy</th>
                <th scope="col">State</th>
                <th scope="col">Agent version</th>
                <th scope="col">Nodes by status</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              {policies.data.map(({ policy, rollup }) => (
                <tr key={policy.name} data-policy={policy.name}>
                  <th scope="row">
                    <a href={hrefOf({ view: 'policy', policy: policy.name })}>{policy.name}</a>
                    {policy.label && <div className="muted">{policy.label}</div>}
                  </th>
                  <td>
                    <Badge state={policy.state} />
                  </td>
                  <td>{policy.agentUpgradePolicy?.atLeastVersion ?? '–'}</td>
                  <td>
                    <StatusCounts counts={rollup.counts} />
                    {rollup.total === 0 && <span className="muted">no node has reported</span>}
                  </td>
                  <td className={rollup.failed > 0 ? 'bad-text' : undefined}>{rollup.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
