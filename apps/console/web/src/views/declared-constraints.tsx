/**
 * The instance groups and instances the org's VNF managers declared (Fenix's constraints API):
 * what sessions, the agbot's gate and placement respect, and who declared it.
 */
import { useCallback } from 'react';
import { read, type Clients } from '../api/clients';
import { Loading, ProblemNotice } from '../components/notice';
import { Ago } from '../components/time';
import { useConsole } from '../live/console-context';
import { useLive } from '../live/use-live';

async function loadConstraints(clients: Clients, org: string) {
  const [groups, instances] = await Promise.all([
    read(clients.maintenance.GET('/v1/instance_group', { params: { query: { org } } }), 'maintenance'),
    read(clients.maintenance.GET('/v1/instance', { params: { query: { org } } }), 'maintenance'),
  ]);
  return { groups: groups.items, instances: instances.items };
}

export function DeclaredConstraints() {
  const { clients, org } = useConsole();
  const load = useCallback(() => loadConstraints(clients, org), [clients, org]);
  const live = useLive(load, { resources: [], refreshSeconds: 30 });
  return (
    <section aria-labelledby="constraints-title">
      <h2 id="constraints-title">Declared constraints</h2>
      {live.error && <ProblemNotice error={live.error} what="read the declared constraints" />}
      {!live.data && !live.error && <Loading what="the declared constraints" />}
      {live.data?.groups.length === 0 && (
        <p className="muted">
          No VNF manager has declared an instance group in org {org} (PUT /v1/instance_group, as Fenix's do).
        </p>
      )}
      {live.data && live.data.groups.length > 0 && (
        <div className="table-scroll">
          <table aria-label="Instance groups">
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">Project</th>
                <th scope="col">Impacted at once</th>
                <th scope="col">Recovery</th>
                <th scope="col">Instances</th>
                <th scope="col">Declared</th>
              </tr>
            </thead>
            <tbody>
              {live.data.groups.map((group) => {
                const members = live.data!.instances.filter((each) => each.group_id === group.group_id);
                return (
                  <tr key={group.group_id} data-group={group.group_id}>
                    <th scope="row">
                      {group.group_name}
                      <div className="muted">{group.group_id}</div>
                    </th>
                    <td>{group.project_id}</td>
                    <td data-max-impacted>{group.max_impacted_members}</td>
                    <td>{group.recovery_time} s</td>
                    <td>{members.map((each) => each.instance_id).join(', ') || '–'}</td>
                    <td>
                      by {group.updated_by} <Ago at={group.updated_at} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
