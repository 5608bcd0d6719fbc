/** Rollouts: the org's deployment-strategy rollouts, newest first, and a form to start one. */
import { useCallback, useState, type FormEvent } from 'react';
import { read, type Clients } from '../api/clients';
import { mayOperate } from '../api/identity';
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

const ORCHESTRATOR = 'deployment orchestrator';

async function loadRollouts(clients: Clients, org: string) {
  const [rollouts, strategies] = await Promise.all([
    read(clients.orchestrator.GET('/v1/rollouts', { params: { query: { org, limit: 100 } } }), ORCHESTRATOR),
    read(clients.orchestrator.GET('/v1/strategies', { params: { query: { org } } }), ORCHESTRATOR),
  ]);
  return { rollouts: rollouts.items, strategies: strategies.items.map((strategy) => strategy.name) };
}

export function RolloutsView() {
  const { clients, org, identity } = useConsole();
  const load = useCallback(() => loadRollouts(clients, org), [clients, org]);
  const live = useLive(load, { resources: ['managementStatus', 'managementPolicy'], refreshSeconds: 5 });
  return (
    <section aria-labelledby="rollouts-title">
      <h1 id="rollouts-title">Rollouts</h1>
      {live.error && <ProblemNotice error={live.error} what="read the rollouts" />}
      {!live.data && !live.error && <Loading what="the rollouts" />}
      {live.data && mayOperate(identity) && <StartRollout strategies={live.data.strategies} />}
      {live.data?.rollouts.length === 0 && (
        <Empty>
          No rollout has run in org {org}. Publish a deployment strategy with{' '}
          <code>careen strategy publish</code>, then start a rollout of it here.
        </Empty>
      )}
      {live.data && live.data.rollouts.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Rollout</th>
                <th scope="col">State</th>
                <th scope="col">Agent version</th>
                <th scope="col">Progress</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {live.data.rollouts.map((rollout) => (
                <tr key={rollout.id} data-rollout={rollout.id}>
                  <th scope="row">
                    <a href={hrefOf({ view: 'rollout', rollout: rollout.id })}>
                      {rollout.strategy} v{rollout.strategy_version}
                    </a>
                    <div className="muted">{rollout.id.slice(0, 8)}</div>
                  </th>
                  <td>
                    <Badge state={rollout.state} />
                    {rollout.current_group && <div className="muted">at {rollout.current_group}</div>}
                  </td>
                  <td>{rollout.version}</td>
                  <td>
                    {rollout.counts.success}/{rollout.counts.nodes} done
                    {rollout.counts.failure > 0 && (
                      <span className="bad-text">, {rollout.counts.failure} failed</span>
                    )}
                  </td>
                  <td>
                    <Ago at={rollout.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function StartRollout({ strategies }: { strategies: string[] }) {
  const { clients, org } = useConsole();
  const action = useAction();
  const [strategy, setStrategy] = useState('');
  const [version, setVersion] = useState('');
  const [phaseTimeout, setPhaseTimeout] = useState('');
  const start = async (event: FormEvent) => {
    event.preventDefault();
    let started: { id: string } | undefined;
    const ok = await action.run(async () => {
      started = await read(
        clients.orchestrator.POST('/v1/rollouts', {
          body: {
            org,
            strategy: strategy || (strategies[0] ?? ''),
            version: version.trim(),
            ...(phaseTimeout.trim() ? { phase_timeout_seconds: typedNumber(phaseTimeout) } : {}),
          },
        }),
        ORCHESTRATOR,
      );
    });
    if (ok && started) window.location.hash = hrefOf({ view: 'rollout', rollout: started.id });
  };
  if (strategies.length === 0) return null;
  return (
    <details className="panel">
      <summary>Start a rollout</summary>
      <form
        className="inline-form"
        onSubmit={(event) => void start(event)}
        noValidate
        aria-label="Start a rollout"
      >
        <FormProblem problem={action.problem} fields={['version', 'phase_timeout_seconds']} />
        <div className="field">
          <label htmlFor="rollout-strategy">Strategy</label>
          <select
            id="rollout-strategy"
            value={strategy}
            onChange={(event) => setStrategy(event.target.value)}
          >
            {strategies.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </div>
        <Field
          label="Agent version"
          name="version"
          value={version}
          onChange={(event) => setVersion(event.target.value)}
          refusal={action.problem}
        />
        <Field
          label="Phase timeout (seconds)"
          name="phase_timeout_seconds"
          inputMode="numeric"
          value={phaseTimeout}
          onChange={(event) => setPhaseTimeout(event.target.value)}
          hint="10 to 604800; empty for an hour"
          refusal={action.problem}
        />
        <button type="submit" className="primary" disabled={action.busy}>
          Start
        </button>
      </form>
    </details>
  );
}
