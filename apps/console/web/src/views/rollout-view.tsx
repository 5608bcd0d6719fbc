/** One rollout: its dependency graph with each group's phase and progress, its nodes, and pause, resume and cancel. */
import { useCallback, useState } from 'react';
import { read } from '../api/clients';
import { mayOperate } from '../api/identity';
import { Badge } from '../components/badge';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DependencyGraph } from '../components/dependency-graph';
import { Loading, ProblemNotice } from '../components/notice';
import { Ago } from '../components/time';
import { useConsole } from '../live/console-context';
import { useAction } from '../live/use-action';
import { useLive } from '../live/use-live';
import { hrefOf } from '../routing/route';

const ORCHESTRATOR = 'deployment orchestrator';
const ENDED = new Set(['completed', 'failed', 'cancelled']);

export function RolloutView({ rollout: id }: { rollout: string }) {
  const { clients, identity } = useConsole();
  const load = useCallback(
    () => read(clients.orchestrator.GET('/v1/rollouts/{id}', { params: { path: { id } } }), ORCHESTRATOR),
    [clients, id],
  );
  const live = useLive(load, { resources: ['managementStatus', 'managementPolicy'], refreshSeconds: 3 });
  const action = useAction();
  const [cancelling, setCancelling] = useState(false);
  const act = async (verb: 'pause' | 'resume' | 'cancel') => {
    setCancelling(false);
    const path = { id };
    const call =
      verb === 'pause'
        ? clients.orchestrator.POST('/v1/rollouts/{id}/pause', { params: { path } })
        : verb === 'resume'
          ? clients.orchestrator.POST('/v1/rollouts/{id}/resume', { params: { path } })
          : clients.orchestrator.POST('/v1/rollouts/{id}/cancel', { params: { path } });
    if (await action.run(() => read(call, ORCHESTRATOR))) await live.reload();
  };
  const rollout = live.data;

  return (
    <section aria-labelledby="rollout-title">
      <p>
        <a href={hrefOf({ view: 'rollouts' })}>← Rollouts</a>
      </p>
      <h1 id="rollout-title">
        Rollout {rollout ? `${rollout.strategy} v${rollout.strategy_version} → ${rollout.version}` : id}
      </h1>
      {live.error && <ProblemNotice error={live.error} what="read the rollout" />}
      {!rollout && !live.error && <Loading what="the rollout" />}
      {rollout && (
        <>
          <p data-rollout-state>
            <Badge state={rollout.state} /> {rollout.reason && <span>{rollout.reason}</span>}{' '}
            {rollout.counts.success} of {rollout.counts.nodes} nodes done
            {rollout.counts.failure > 0 && (
              <span className="bad-text">, {rollout.counts.failure} failed</span>
            )}
            {rollout.current_group && <>, now at group {rollout.current_group}</>}.
          </p>
          {action.problem && (
            <div className="notice notice-error" role="alert">
              {action.problem.message}
            </div>
          )}
          {mayOperate(identity) && !ENDED.has(rollout.state) && (
            <div className="actions">
              {rollout.state === 'running' && (
                <button type="button" onClick={() => void act('pause')} disabled={action.busy}>
                  Pause
                </button>
              )}
              {rollout.state === 'paused' && (
                <button type="button" onClick={() => void act('resume')} disabled={action.busy}>
                  Resume
                </button>
              )}
              {rollout.state !== 'cancelling' && (
                <button
                  type="button"
                  className="danger"
                  onClick={() => setCancelling(true)}
                  disabled={action.busy}
                >
                  Cancel rollout
                </button>
              )}
            </div>
          )}
          {rollout.warnings.length > 0 && (
            <ul className="notice" aria-label="warnings when it started">
              {rollout.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          )}
          <DependencyGraph stages={rollout.stages} groups={rollout.groups} />
          <h2>Groups</h2>
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Phase</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Depends on</th>
                  <th scope="col">Started</th>
                </tr>
              </thead>
              <tbody>
                {rollout.groups.map((group) => (
                  <tr key={group.name} data-group={group.name}>
                    <th scope="row">
                      {group.name}
                      {group.critical && <span className="muted"> (critical)</span>}
                    </th>
                    <td>
                      <Badge state={group.phase} />
                      {group.reason && <div className="bad-text">{group.reason}</div>}
                    </td>
                    <td>
                      <progress
                        max={Math.max(1, group.nodes)}
                        value={group.successful}
                        aria-label={`${group.name} progress`}
                      />{' '}
                      {group.successful}/{group.nodes}
                      {group.prepared > 0 && <span className="muted"> ({group.prepared} prepared)</span>}
                      {group.failed > 0 && <span className="bad-text"> ({group.failed} failed)</span>}
                    </td>
                    <td>{group.depends_on.join(', ') || '–'}</td>
                    <td>
                      <Ago at={group.started_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Nodes</h2>
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">Group</th>
                  <th scope="col">State</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {rollout.nodes.map((node) => (
                  <tr key={node.node}>
                    <th scope="row">
                      <a href={hrefOf({ view: 'node', node: node.node })}>{node.node}</a>
                    </th>
                    <td>{node.group ?? '–'}</td>
                    <td>
                      <Badge state={node.state} />
                    </td>
                    <td>
                      {node.status ?? '–'}
                      {node.error && <div className="bad-text">{node.error}</div>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ConfirmDialog
            open={cancelling}
            title="Cancel this rollout?"
            confirmLabel="Cancel rollout"
            onConfirm={() => void act('cancel')}
            onCancel={() => setCancelling(false)}
          >
            Nothing more is sent. Once no node is in the middle of a step the rollout ends cancelled and its
            nodes are given back; nodes already upgraded stay upgraded.
          </ConfirmDialog>
        </>
      )}
    </section>
  );
}
