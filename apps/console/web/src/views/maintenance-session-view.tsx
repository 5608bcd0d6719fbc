/**
 * One maintenance session: its hosts advancing through the workflow (with who holds the slot a
 * host waits for), each project's events and replies on a timeline, and pause, resume, abort and
 * complete host. The projects' events arrive live
 * from the notifier's event stream; the hosts' steps from the change feed.
 */
import { useCallback, useEffect, useState } from 'react';
import { read } from '../api/clients';
import { mayOperate } from '../api/identity';
import { Badge } from '../components/badge';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { Ago, When } from '../components/time';
import { useConsole } from '../live/console-context';
import { followEventStream } from '../live/event-stream';
import { useAction } from '../live/use-action';
import { useLive } from '../live/use-live';
import { hrefOf } from '../routing/route';

/**
 * The steps a host goes through, in order; it ends `done`, `skipped` (left out, with the reason)
 * or `interrupted` (out of service when the session ended, in the step it was in).
 */
const HOST_STEPS = ['waiting', 'slot', 'preparing', 'evacuating', 'in-maintenance', 'returning'] as const;
const ENDED = new Set(['MAINTENANCE_DONE', 'MAINTENANCE_FAILED']);
/** Host actions whose end someone reports: the host waits in maintenance until completed. */
const COMPLETED_BY_HAND = new Set(['manual', 'external']);

type SessionHost = Awaited<ReturnType<typeof loadSession>>['hosts'][number];

function loadSession(clients: ReturnType<typeof useConsole>['clients'], id: string) {
  return read(
    clients.maintenance.GET('/v1/maintenance/{session}', { params: { path: { session: id } } }),
    'maintenance',
  );
}

/** Where a host stands now, in words: its outcome, who holds the slot it waits for, or why it may not take it. */
function HostOutcome({ host }: { host: SessionHost }) {
  const holder = host.waiting_for;
  if (holder)
    return (
      <span data-slot-holder>
        slot held by {holder.node} ({holder.kind}
        {holder.management_policy && <> {holder.management_policy}</>}
        {holder.session && (
          <>
            {' '}
            session{' '}
            <a href={hrefOf({ view: 'maintenance-session', session: holder.session })}>
              {holder.session.slice(0, 8)}
            </a>
          </>
        )}
        {holder.halted && ', halted'}) since <Ago at={holder.since} />
      </span>
    );
  if (host.phase === 'done') return <>done</>;
  if (host.phase === 'skipped') return <>skipped: {host.reason ?? 'no reason given'}</>;
  if (host.phase === 'interrupted')
    return (
      <>
        interrupted while {host.interrupted_in ?? 'under way'}: {host.reason ?? 'the session ended'}
      </>
    );
  if (host.phase === 'slot' && host.reason) return <span data-slot-refusal>waiting: {host.reason}</span>;
  // Kept back by an instance group's budget or recovery, before asking for a slot.
  if (host.phase === 'waiting' && host.reason)
    return <span data-constraint-wait>waiting: {host.reason}</span>;
  return null;
}

export function MaintenanceSessionView({ session: id }: { session: string }) {
  const { clients, identity, org } = useConsole();
  const load = useCallback(() => loadSession(clients, id), [clients, id]);
  const live = useLive(load, { resources: ['node'], refreshSeconds: 3 });
  const session = live.data;
  const projects = session?.projects.map((project) => project.project_id).join(',') ?? '';
  const { reload } = live;

  // Each project's events, as a VNF manager would see them, reload the session as they come.
  useEffect(() => {
    if (!projects) return;
    const stop = new AbortController();
    for (const project of projects.split(','))
      followEventStream(
        `/notifier/v1/stream?${new URLSearchParams({ project_id: project, org })}`,
        () => clients.authorization,
        () => void reload(),
        stop.signal,
      );
    return () => stop.abort();
  }, [projects, org, clients, reload]);

  const action = useAction();
  const [aborting, setAborting] = useState(false);
  const act = async (verb: 'pause' | 'resume' | 'abort') => {
    setAborting(false);
    const path = { session: id };
    const call =
      verb === 'pause'
        ? clients.maintenance.POST('/v1/maintenance/{session}/pause', { params: { path } })
        : verb === 'resume'
          ? clients.maintenance.POST('/v1/maintenance/{session}/resume', { params: { path } })
          : clients.maintenance.DELETE('/v1/maintenance/{session}', { params: { path } });
    if (await action.run(() => read(call, 'maintenance'))) await reload();
  };
  const complete = async (host: string) => {
    const call = clients.maintenance.POST('/v1/maintenance/{session}/hosts/{host}/complete', {
      params: { path: { session: id, host } },
    });
    if (await action.run(() => read(call, 'maintenance'))) await reload();
  };
  const completable = (host: SessionHost) =>
    mayOperate(identity) &&
    !!session &&
    !ENDED.has(session.state) &&
    COMPLETED_BY_HAND.has(session.host_action.kind) &&
    host.phase === 'in-maintenance';

  return (
    <section aria-labelledby="session-title">
      <p>
        <a href={hrefOf({ view: 'maintenance' })}>← Maintenance sessions</a>
      </p>
      <h1 id="session-title">Maintenance session {id.slice(0, 8)}</h1>
      {live.error && <ProblemNotice error={live.error} what="read the maintenance session" />}
      {!session && !live.error && <Loading what="the maintenance session" />}
      {session && (
        <>
          <p data-session-state>
            <Badge state={session.state} /> {session.paused && <Badge state="paused" />}{' '}
            {session.failure && <span className="bad-text">{session.failure}</span>} Host action{' '}
            <code>{session.host_action.kind}</code>, {session.max_parallel_hosts} host
            {session.max_parallel_hosts === 1 ? '' : 's'} at a time, started <Ago at={session.created_at} />{' '}
            by {session.created_by}.
          </p>
          <p data-hosts-summary>Hosts: {session.hosts_summary}</p>
          {action.problem && (
            <div className="notice notice-error" role="alert">
              {action.problem.message}
            </div>
          )}
          {mayOperate(identity) && !ENDED.has(session.state) && (
            <div className="actions">
              {session.paused ? (
                <button type="button" onClick={() => void act('resume')} disabled={action.busy}>
                  Resume
                </button>
              ) : (
                <button type="button" onClick={() => void act('pause')} disabled={action.busy}>
                  Pause
                </button>
              )}
              <button
                type="button"
                className="danger"
                onClick={() => setAborting(true)}
                disabled={action.busy}
              >
                Abort session
              </button>
            </div>
          )}
          <h2>Hosts</h2>
          <div className="table-scroll">
            <table className="steps">
              <thead>
                <tr>
                  <th scope="col">Host</th>
                  {HOST_STEPS.map((step) => (
                    <th scope="col" key={step}>
                      {step}
                    </th>
                  ))}
                  <th scope="col">outcome</th>
                </tr>
              </thead>
              <tbody>
                {session.hosts.map((host) => {
                  const ended = host.phase === 'done' || host.phase === 'skipped';
                  const reached = ended
                    ? HOST_STEPS.length
                    : (HOST_STEPS as readonly string[]).indexOf(
                        host.phase === 'interrupted' ? (host.interrupted_in ?? 'waiting') : host.phase,
                      );
                  return (
                    <tr key={host.host} data-host={host.host} data-phase={host.phase}>
                      <th scope="row">
                        <a href={hrefOf({ view: 'node', node: host.host })}>{host.host}</a>
                        {host.ha_group && <div className="muted">{host.ha_group}</div>}
                      </th>
                      {HOST_STEPS.map((step, index) => (
                        <td
                          key={step}
                          className={
                            index < reached ? 'step-past' : index === reached ? 'step-now' : 'step-later'
                          }
                        >
                          {index === reached && (
                            <>
                              <span className="visually-hidden">now </span>
                              <Ago at={host.since} />
                            </>
                          )}
                        </td>
                      ))}
                      <td
                        className={
                          host.phase === 'skipped' || host.phase === 'interrupted'
                            ? 'bad-text'
                            : ended
                              ? 'step-past'
                              : 'step-later'
                        }
                      >
                        <HostOutcome host={host} />
                        {completable(host) && (
                          <button
                            type="button"
                            onClick={() => void complete(host.host)}
                            disabled={action.busy}
                            aria-label={`Complete host ${host.host}`}
                          >
                            Complete host
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <h2>Projects</h2>
          {session.projects.length === 0 && <Empty>No project has instances on these hosts.</Empty>}
          {session.projects.map((project) => (
            <article key={project.project_id} className="card" data-project={project.project_id}>
              <h3>
                {project.project_id}{' '}
                {!project.subscribed && (
                  <span className="muted">(no subscriber: its replies are not awaited)</span>
                )}
              </h3>
              <ol className="timeline">
                {session.timeline
                  .filter((entry) => entry.project_id === project.project_id)
                  .map((entry, index) => (
                    <li key={index} className={`timeline-${entry.kind}`}>
                      <When at={entry.at} />{' '}
                      {entry.kind === 'sent' ? '→' : entry.kind === 'received' ? '←' : '·'}{' '}
                      <strong>{entry.summary}</strong>
                      {entry.host && <> for {entry.host}</>}
                      {entry.kind === 'refused' && <span className="bad-text"> refused</span>}
                    </li>
                  ))}
              </ol>
            </article>
          ))}
          <h2>Other steps</h2>
          <ol className="timeline">
            {session.timeline
              .filter((entry) => entry.project_id === null)
              .map((entry, index) => (
                <li key={index}>
                  <When at={entry.at} /> <strong>{entry.summary}</strong>
                  {entry.host && <> ({entry.host})</>}
                </li>
              ))}
          </ol>
          <ConfirmDialog
            open={aborting}
            title="Abort this maintenance session?"
            confirmLabel="Abort session"
            onConfirm={() => void act('abort')}
            onCancel={() => setAborting(false)}
          >
            Hosts under way are put back in service and their HA-group slots given back; the projects are told
            MAINTENANCE_COMPLETE. The session ends failed.
          </ConfirmDialog>
        </>
      )}
    </section>
  );
}
