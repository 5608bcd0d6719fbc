/**
 * HA groups: each group's members and their state, who holds the group's slot and since when
 * (every FleetLock holder, when reboots share it), who waits for it (members whose agent upgrade
 * waits, hosts of maintenance sessions asking for the slot).
 */
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

/** A FleetLock holder of a group, since it was granted the slot. */
interface SlotParty {
  node: string;
  since: string;
}

interface GroupParties {
  fleetlockHolders: SlotParty[];
  /** FleetLock clients refused the slot that still ask for it, since their first refusal. */
  fleetlockWaiters: SlotParty[];
  /** Hosts of open maintenance sessions asking for the slot, since they began asking. */
  maintenanceWaiters: (SlotParty & { session: string })[];
}

async function loadGroups(
  clients: Clients,
  org: string,
): Promise<{ groups: GroupView[]; parties: Map<string, GroupParties> }> {
  const path = { org };
  const none = { items: [] };
  const [groups, slots, nodes, policies, held, rebootWaiters, sessions] = await Promise.all([
    read(clients.exchange.GET('/v1/orgs/{org}/hagroups', { params: { path } }), 'exchange'),
    read(clients.agbot.GET('/v1/orgs/{org}/upgrade-groups', { params: { path } }), 'agbot'),
    read(clients.exchange.GET('/v1/orgs/{org}/nodes', { params: { path } }), 'exchange'),
    read(clients.exchange.GET('/v1/orgs/{org}/management-policies', { params: { path } }), 'exchange'),
    // Who else holds or waits for a slot: without them (a service down) the groups still show.
    read(clients.agbot.GET('/v1/orgs/{org}/upgrades', { params: { path } }), 'agbot').catch(() => none),
    read(clients.agbot.GET('/v1/orgs/{org}/fleetlock-waiters', { params: { path } }), 'agbot').catch(
      () => none,
    ),
    read(clients.maintenance.GET('/v1/maintenance', { params: { query: { org } } }), 'maintenance').catch(
      () => none,
    ),
  ]);
  const parties = new Map<string, GroupParties>();
  const of = (group: string) => {
    const found = parties.get(group) ?? {
      fleetlockHolders: [],
      fleetlockWaiters: [],
      maintenanceWaiters: [],
    };
    parties.set(group, found);
    return found;
  };
  for (const slot of held.items)
    if (slot.kind === 'fleetlock' && slot.haGroup)
      of(slot.haGroup).fleetlockHolders.push({ node: slot.node, since: slot.grantedAt });
  for (const waiter of rebootWaiters.items)
    of(waiter.haGroup).fleetlockWaiters.push({ node: waiter.node, since: waiter.since });
  for (const session of sessions.items)
    for (const host of session.hosts)
      if (host.phase === 'slot' && host.ha_group && session.closed_at === null)
        of(host.ha_group).maintenanceWaiters.push({
          node: host.host,
          since: host.since,
          session: session.session_id,
        });
  const enabled = policies.items.filter((policy) => policy.enabled);
  const statuses = (
    await Promise.all(enabled.map((policy) => policyStatuses(clients, org, policy.name)))
  ).flat();
  const versions = new Map(nodes.items.map((node) => [node.id, node.status?.agentVersion?.package ?? null]));
  return { groups: groupViews(groups.items, slots.items, versions, statuses), parties };
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
      {groups.data?.groups.length === 0 && (
        <Empty>
          Org {org} has no HA groups. Group nodes that serve together with <code>careen hagroup create</code>.
        </Empty>
      )}
      <div className="cards">
        {groups.data?.groups.map((group) => (
          <GroupCard key={group.name} group={group} parties={groups.data?.parties.get(group.name)} />
        ))}
      </div>
    </section>
  );
}

function GroupCard({ group, parties }: { group: GroupView; parties: GroupParties | undefined }) {
  const fleetlock = parties?.fleetlockHolders ?? [];
  const rebootWaiters = parties?.fleetlockWaiters ?? [];
  const maintenance = parties?.maintenanceWaiters ?? [];
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
        {slot.holder && slot.halted && ' '}
        {slot.halted && (
          <>
            <strong>{slot.halted.node}</strong> halted the group <Ago at={slot.halted.since} />
            {slot.halted.error && <span className="bad-text">: {slot.halted.error}</span>}. Once it is
            repaired,{' '}
            <code>
              careen hagroup reset {group.name} --node {slot.halted.node}
            </code>{' '}
            lets the group go on.
          </>
        )}
      </p>
      <NodesSince what="FleetLock reboots holding the slot" parties={fleetlock} data-fleetlock-holders />
      <NodesSince
        what="FleetLock reboots waiting for the slot"
        parties={rebootWaiters}
        data-fleetlock-waiters
      />
      {group.waiting.length > 0 && <p>Agent upgrades waiting for the slot: {group.waiting.join(', ')}</p>}
      {maintenance.length > 0 && (
        <p data-slot-waiters>
          Maintenance waiting for the slot:{' '}
          {maintenance.map((waiter, index) => (
            <span key={waiter.node}>
              {index > 0 && ', '}
              <strong>{waiter.node}</strong> (session{' '}
              <a href={hrefOf({ view: 'maintenance-session', session: waiter.session })}>
                {waiter.session.slice(0, 8)}
              </a>
              ) since <Ago at={waiter.since} />
            </span>
          ))}
        </p>
      )}
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

/** `what: a since 2 min ago, b since 10 s ago`, or nothing when there are none. */
function NodesSince({
  what,
  parties,
  ...data
}: { what: string; parties: SlotParty[] } & Record<`data-${string}`, boolean>) {
  if (parties.length === 0) return null;
  return (
    <p {...data}>
      {what}:{' '}
      {parties.map((party, index) => (
        <span key={party.node}>
          {index > 0 && ', '}
          <strong>{party.node}</strong> since <Ago at={party.since} />
        </span>
      ))}
    </p>
  );
}
