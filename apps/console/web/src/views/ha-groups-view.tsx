/** HA groups: each group's members and their state, who holds the group's slot and since when, who waits for it. */
import { useCallback } from 'react';
import { read, type Clients } from '../api/clients';
import { policyStatuses } from '../api/policy-statuses';
import { Badge } from '../components/badge';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { Ago } from '../components/time';
import { useConsole } from '../live/console-context';
import { useLive } from '../live/use-live';
import { groupViews, type GroupView } from '../model/ha-groups';
import { hrefOf } from '../routing/route';

async function loadGroups(clients: Clients, org: string): Promise<GroupView[]> {
  const path = { org };
  const [groups, slots, nodes, policies] = await Promise.all([
    read(clients.exchange.GET('/v1/orgs/{org}/hagroups', { params: { path } }), 'exchange'),
    read(clients.agbot.GET('/v1/orgs/{org}/upgrade-groups', { params: { path } }), 'agbot'),
    read(clients.exchange.GET('/v1/orgs/{org}/nodes', { params: { path } }), 'exchange'),
    read(clients.exchange.GET('/v1/orgs/{org}/management-policies', { params: { path } }), 'exchange'),
  ]);
  const enabled = policies.items.filter((policy) => policy.enabled);
  const statuses = (
    await Promise.all(enabled.map((policy) => policyStatuses(clients, org, policy.name)))
  ).flat();
  const versions = new Map(nodes.items.map((node) => [node.id, node.status?.agentVersion?.package ?? null]));
  return groupViews(groups.items, slots.items, versions, statuses);
}

export function HaGroupsView() {
  const { clients, org } = useConsole();
  const load = useCallback(() => loadGroups(clients, org), [clients, org]);
  const groups = useLive(load, {
    resources: ['haGroup', 'node', 'managementStatus', 'managementPolicy'],
    refreshSeconds: 5,
  });
  return (
    <section aria-labelledby="groups-title">
      <h1 id="groups-title">HA groups</h1>
      <p className="muted">
        At most one member of a group is disrupted at a time — an agent upgrade, a maintenance, a FleetLock
        reboot or a rollout step holds the group&apos;s slot.
      </p>
      {groups.error && <ProblemNotice error={groups.error} what="read the HA groups" />}
      {!groups.data && !groups.error && <Loading what="the HA groups" />}
      {groups.data?.length === 0 && (
        <Empty>
          Org {org} has no HA groups. Group nodes that serve together with <code>careen hagroup create</code>.
        </Empty>
      )}
      <div className="cards">
        {groups.data?.map((group) => (
          <GroupCard key={group.name} group={group} />
        ))}
      </div>
    </section>
  );
}

function GroupCard({ group }: { group: GroupView }) {
  const { slot } = group;
  return (
    <article className="card" aria-labelledby={`group-${group.name}`} data-group={group.name}>
      <h2 id={`group-${group.name}`}>
        {group.name} <Badge state={slot.state} />
      </h2>
      {group.description && <p className="muted">{group.description}</p>}
      <p data-slot>
        {slot.state === 'free' && 'The slot is free.'}
        {slot.holder && (
          <>
            <strong>{slot.holder.node}</strong> holds the slot for {slot.holder.kind}
            {slot.holder.managementPolicy && ` (${slot.holder.managementPolicy})`} since{' '}
            <Ago at={slot.holder.grantedAt} />.
          </>
        )}
        {slot.halted && (
          <>
            <strong>{slot.halted.node}</strong> halted the group <Ago at={slot.halted.since} />
            {slot.halted.error && <span className="bad-text">: {slot.halted.error}</span>}. Reset its status
            to go on.
          </>
        )}
      </p>
      {group.waiting.length > 0 && <p>Waiting for the slot: {group.waiting.join(', ')}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Agent</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {group.members.map((member) => (
            <tr key={member.node} className={member.holdsSlot ? 'holder' : undefined}>
              <th scope="row">
                <a href={hrefOf({ view: 'node', node: member.node })}>{member.node}</a>
                {member.holdsSlot && <span className="muted"> (slot)</span>}
              </th>
              <td data-cell="version">{member.version ?? <span className="muted">–</span>}</td>
              <td>
                {member.status ? (
                  <>
                    <Badge state={member.status.status} /> <span className="muted">{member.status.nmp}</span>
                    {member.status.error && <div className="bad-text">{member.status.error}</div>}
                  </>
                ) : (
                  <span className="muted">–</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}
