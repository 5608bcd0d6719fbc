/**
 * Maintenance: the org's sessions, newest first, a form to start one with its host action, and
 * the constraints the org's VNF managers declared.
 */
import { useCallback, useState, type FormEvent } from 'react';
import { read, type Clients } from '../api/clients';
import { mayOperate } from '../api/identity';
import { ApiProblem } from '../api/problem';
import { Badge } from '../components/badge';
import { Field } from '../components/field';
import { FormProblem } from '../components/form-problem';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { Ago } from '../components/time';
import { useConsole } from '../live/console-context';
import { useAction } from '../live/use-action';
import { useLive } from '../live/use-live';
import { typedNumber } from '../model/typed-number';
import { hrefOf } from '../routing/route';
import { DeclaredConstraints } from './declared-constraints';

async function loadSessions(clients: Clients, org: string) {
  return read(clients.maintenance.GET('/v1/maintenance', { params: { query: { org } } }), 'maintenance');
}

export function MaintenanceView() {
  const { clients, org, identity } = useConsole();
  const load = useCallback(() => loadSessions(clients, org), [clients, org]);
  const live = useLive(load, { resources: ['node'], refreshSeconds: 5 });
  return (
    <section aria-labelledby="maintenance-title">
      <h1 id="maintenance-title">Maintenance sessions</h1>
      {live.error && <ProblemNotice error={live.error} what="read the maintenance sessions" />}
      {!live.data && !live.error && <Loading what="the maintenance sessions" />}
      {live.data && mayOperate(identity) && <StartSession />}
      {live.data?.items.length === 0 && (
        <Empty>
          No maintenance session has run in org {org}. Start one above, or with careen maintenance start.
        </Empty>
      )}
      {live.data && live.data.items.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">State</th>
                <th scope="col">Hosts</th>
                <th scope="col">Projects</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {live.data.items.map((session) => (
                <tr key={session.session_id} data-session={session.session_id}>
                  <th scope="row">
                    <a href={hrefOf({ view: 'maintenance-session', session: session.session_id })}>
                      {session.session_id.slice(0, 8)}
                    </a>
                    <div className="muted">by {session.created_by}</div>
                  </th>
                  <td>
                    <Badge state={session.state} /> {session.paused && <Badge state="paused" />}
                    {session.failure && <div className="bad-text">{session.failure}</div>}
                  </td>
                  <td data-hosts-summary>{session.hosts_summary}</td>
                  <td>{session.projects.map((project) => project.project_id).join(', ') || '–'}</td>
                  <td>
                    <Ago at={session.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <DeclaredConstraints />
    </section>
  );
}

/** What each host action does to an empty host, and the one setting it takes. */
const HOST_ACTIONS = {
  manual: 'each host stays in maintenance until you complete it on the session page',
  simulated: 'each host stays in maintenance for the seconds given, then serves again',
  external: 'each host stays in maintenance until an admin tool reports it complete',
  'agent-upgrade': "each host's agent is upgraded to the version given",
} as const;
type HostActionKind = keyof typeof HOST_ACTIONS;

function StartSession() {
  const { clients, org } = useConsole();
  const action = useAction();
  const [hosts, setHosts] = useState('');
  const [hostAction, setHostAction] = useState<HostActionKind>('manual');
  const [seconds, setSeconds] = useState('');
  const [version, setVersion] = useState('');
  const [parallel, setParallel] = useState('');
  const [replyTimeout, setReplyTimeout] = useState('');
  const start = async (event: FormEvent) => {
    event.preventDefault();
    let started: { session_id: string } | undefined;
    const named = hosts
      .split(/[\s,]+/)
      .map((host) => host.trim())
      .filter(Boolean);
    const ok = await action.run(async () => {
      // An empty list would mean every host of the org: the form asks for them by name.
      if (named.length === 0)
        throw new ApiProblem(400, 'Name the hosts to maintain.', 'INVALID_REQUEST', [
          { field: 'hosts', problems: ['name at least one host'] },
        ]);
      started = await read(
        clients.maintenance.POST('/v1/maintenance', {
          body: {
            org,
            hosts: named,
            host_action: {
              kind: hostAction,
              ...(hostAction === 'simulated' && seconds.trim() ? { seconds: typedNumber(seconds) } : {}),
              ...(hostAction === 'agent-upgrade' ? { version: version.trim() } : {}),
            },
            ...(parallel.trim() ? { max_parallel_hosts: typedNumber(parallel) } : {}),
            ...(replyTimeout.trim() ? { reply_timeout_seconds: typedNumber(replyTimeout) } : {}),
          },
        }),
        'maintenance',
      );
    });
    if (ok && started)
      window.location.hash = hrefOf({ view: 'maintenance-session', session: started.session_id });
  };
  return (
    <details className="panel">
      <summary>Start a maintenance session</summary>
      <form
        className="inline-form"
        onSubmit={(event) => void start(event)}
        noValidate
        aria-label="Start a maintenance session"
      >
        <FormProblem
          problem={action.problem}
          fields={[
            'hosts',
            'host_action.kind',
            'host_action.seconds',
            'host_action.version',
            'max_parallel_hosts',
            'reply_timeout_seconds',
          ]}
        />
        <Field
          label="Hosts"
          name="hosts"
          value={hosts}
          onChange={(event) => setHosts(event.target.value)}
          hint="node ids, separated by commas or spaces"
          refusal={action.problem}
        />
        <div className="field">
          <label htmlFor="maintenance-host-action">Host action</label>
          <select
            id="maintenance-host-action"
            name="host_action.kind"
            value={hostAction}
            onChange={(event) => setHostAction(event.target.value as HostActionKind)}
            aria-describedby="maintenance-host-action-hint"
          >
            {Object.keys(HOST_ACTIONS).map((kind) => (
              <option key={kind}>{kind}</option>
            ))}
          </select>
          <small id="maintenance-host-action-hint" className="muted">
            {HOST_ACTIONS[hostAction]}
          </small>
        </div>
        {hostAction === 'simulated' && (
          <Field
            label="Seconds in maintenance"
            name="host_action.seconds"
            inputMode="numeric"
            value={seconds}
            onChange={(event) => setSeconds(event.target.value)}
            hint="0 to 86400; empty for 0"
            refusal={action.problem}
          />
        )}
        {hostAction === 'agent-upgrade' && (
          <Field
            label="Agent version"
            name="host_action.version"
            value={version}
            onChange={(event) => setVersion(event.target.value)}
            hint="the version to roll each host to, such as 2.31.0"
            refusal={action.problem}
          />
        )}
        <Field
          label="Hosts at a time"
          name="max_parallel_hosts"
          inputMode="numeric"
          value={parallel}
          onChange={(event) => setParallel(event.target.value)}
          hint="1 to 1000; empty for one"
          refusal={action.problem}
        />
        <Field
          label="Reply timeout (seconds)"
          name="reply_timeout_seconds"
          inputMode="numeric"
          value={replyTimeout}
          onChange={(event) => setReplyTimeout(event.target.value)}
          hint="1 to 86400; empty for 60"
          refusal={action.problem}
        />
        <button type="submit" className="primary" disabled={action.busy}>
          Start
        </button>
      </form>
    </details>
  );
}
