/**
 * A maintenance session as `careen maintenance show|watch` print it: a headline, the hosts with
 * their phase, the projects with their last ask, and the latest lines of the timeline.
 */
import { type MaintenanceSession } from '@careen/api-client';
import { formatColumns } from '../output/output';
import { since } from './rollout-screen';

export type SessionWithTimeline = MaintenanceSession.components['schemas']['SessionWithTimelineResponse'];

export const FINISHED_SESSION_STATES = ['MAINTENANCE_DONE', 'MAINTENANCE_FAILED'];

/** What is done to each host once it is empty, and what ends its maintenance. */
export function describeHostAction(session: Pick<SessionWithTimeline, 'session_id' | 'host_action'>): string {
  const action = session.host_action;
  switch (action.kind) {
    case 'manual':
      return `host action manual: each host stays in maintenance until \`careen maintenance complete-host ${session.session_id} <host>\``;
    case 'external':
      return 'host action external: each host stays in maintenance until an admin tool reports it complete';
    case 'simulated':
      return `host action simulated: each host stays in maintenance ${action.seconds ?? 0} s`;
    case 'agent-upgrade':
      return `host action agent-upgrade: each host's agent is upgraded to ${action.version ?? 'the version given'}`;
  }
}

type HostRow = SessionWithTimeline['hosts'][number];

export function renderSession(session: SessionWithTimeline, now: Date, timelineLines = 8): string {
  const headline = [
    `session ${session.session_id} (${session.org}): ${session.state}${session.paused ? ', paused' : ''}`,
    `hosts ${session.hosts_summary} · host action ${session.host_action.kind} · started ${since(session.created_at, now)}`,
    ...(session.failure ? [`failed: ${session.failure}`] : []),
  ];
  const hosts = formatColumns(
    [
      { header: 'HOST', value: (row: HostRow) => row.host },
      { header: 'HA GROUP', value: (row) => row.ha_group ?? '' },
      { header: 'PHASE', value: (row) => row.phase },
      { header: 'SINCE', value: (row) => since(row.since, now) },
      { header: 'REASON', value: (row) => hostReason(row, now) },
    ],
    session.hosts,
  );
  const projects =
    session.projects.length === 0
      ? 'no project has instances on these hosts\n'
      : formatColumns(
          [
            { header: 'PROJECT', value: (row: SessionWithTimeline['projects'][number]) => row.project_id },
            { header: 'INSTANCES', value: (row) => row.instance_ids.length },
            { header: 'SUBSCRIBED', value: (row) => (row.subscribed ? 'yes' : 'no') },
            { header: 'LAST ASK', value: (row) => lastAsk(row.asks) },
          ],
          session.projects,
        );
  const timeline = session.timeline
    .slice(-timelineLines)
    .map(
      (entry) =>
        `${entry.at}  ${entry.kind.padEnd(8)} ${[entry.project_id ?? (entry.host ? 'admin' : ''), entry.summary, entry.host ?? ''].filter(Boolean).join(' ')}`,
    );
  return `${headline.join('\n')}\n\n${hosts}\n${projects}${timeline.length > 0 ? `\n${timeline.join('\n')}\n` : ''}`;
}

/** Why a host is where it is: who holds the slot it waits for, or why it was left out or cut short. */
export function hostReason(row: HostRow, now: Date): string {
  const holder = row.waiting_for;
  if (holder) {
    const of = holder.management_policy ?? (holder.session ? `session ${holder.session}` : null);
    return `slot held by ${holder.node} (${holder.kind}${of ? ` ${of}` : ''}${holder.halted ? ', halted' : ''}) since ${since(holder.since, now)}`;
  }
  if (row.phase === 'interrupted')
    return `${row.reason ?? 'the session ended'} (while ${row.interrupted_in ?? 'under way'})`;
  return row.reason ?? '';
}

function lastAsk(asks: SessionWithTimeline['projects'][number]['asks']): string {
  const ask = asks.at(-1);
  if (!ask) return 'not asked';
  return `${ask.state}${ask.host ? ` ${ask.host}` : ''}: ${ask.answer}`;
}
