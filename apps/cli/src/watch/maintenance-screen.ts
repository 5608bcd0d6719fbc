/**
 * A maintenance session as `careen maintenance show|watch` print it: a headline, the hosts with
 * their phase, the projects with their last ask, and the latest lines of the timeline.
 */
import { type MaintenanceSession } from '@careen/api-client';
import { formatColumns } from '../output/output';
import { since } from './rollout-screen';

export type SessionWithTimeline = MaintenanceSession.components['schemas']['SessionWithTimelineResponse'];

export const FINISHED_SESSION_STATES = ['MAINTENANCE_DONE', 'MAINTENANCE_FAILED'];

export function renderSession(session: SessionWithTimeline, now: Date, timelineLines = 8): string {
  const done = session.hosts.filter((host) => host.phase === 'done').length;
  const skipped = session.hosts.filter((host) => host.phase === 'skipped').length;
  const headline = [
    `session ${session.session_id} (${session.org}): ${session.state}${session.paused ? ', paused' : ''}`,
    `hosts ${done}/${session.hosts.length} done${skipped > 0 ? `, ${skipped} skipped` : ''} · host action ${session.host_action.kind} · started ${since(session.created_at, now)}`,
    ...(session.failure ? [`failed: ${session.failure}`] : []),
  ];
  const hosts = formatColumns(
    [
      { header: 'HOST', value: (row: SessionWithTimeline['hosts'][number]) => row.host },
      { header: 'HA GROUP', value: (row) => row.ha_group ?? '' },
      { header: 'PHASE', value: (row) => row.phase },
      { header: 'SINCE', value: (row) => since(row.since, now) },
      { header: 'REASON', value: (row) => row.reason ?? '' },
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
        `${entry.at}  ${entry.kind.padEnd(8)} ${[entry.project_id ?? (entry.host ? 'admin' : ''), entry.state ?? '', entry.host ?? ''].filter(Boolean).join(' ')}`,
    );
  return `${headline.join('\n')}\n\n${hosts}\n${projects}${timeline.length > 0 ? `\n${timeline.join('\n')}\n` : ''}`;
}

function lastAsk(asks: SessionWithTimeline['projects'][number]['asks']): string {
  const ask = asks.at(-1);
  if (!ask) return 'not asked';
  return `${ask.state}${ask.host ? ` ${ask.host}` : ''}: ${ask.answer}`;
}
