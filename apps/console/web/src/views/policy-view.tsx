/**
 * One management policy: its rollup now and over time, its failures with their errors, and
 * for admins enable/disable (asking first, as the CLI does, when it selects every node),
 * pause, resume over a window, and reset of the failed nodes.
 */
import { useCallback, useState, type FormEvent } from 'react';
import { read, type Clients } from '../api/clients';
import { isAdmin, mayOperate } from '../api/identity';
import { policyStatuses } from '../api/policy-statuses';
import { Badge } from '../components/badge';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field } from '../components/field';
import { FormProblem } from '../components/form-problem';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { StatusCounts } from '../components/status-counts';
import { RollupChart } from '../components/rollup-chart';
import { Ago, When } from '../components/time';
import { useConsole } from '../live/console-context';
import { useNow } from '../live/use-now';
import { useAction } from '../live/use-action';
import { useLive } from '../live/use-live';
import { replacementBody, selectsEveryNode } from '../model/policy-body';
import { rollupOverTime } from '../model/rollup-over-time';
import { typedNumber } from '../model/typed-number';
import { hrefOf } from '../routing/route';

const FAILED = new Set([
  'failed',
  'rollback-failed',
  'download-failed',
  'precheck-failed',
  'conflict',
  'rolled-back',
]);

async function loadPolicy(clients: Clients, org: string, name: string) {
  const path = { org, name };
  const [policy, rollup, statuses, history] = await Promise.all([
    read(clients.exchange.GET('/v1/orgs/{org}/management-policies/{name}', { params: { path } }), 'exchange'),
    read(
      clients.exchange.GET('/v1/orgs/{org}/management-policies/{name}/status', { params: { path } }),
      'exchange',
    ),
    policyStatuses(clients, org, name),
    read(
      clients.exchange.GET('/v1/orgs/{org}/management-policies/{name}/history', {
        params: { path, query: { limit: 1000 } },
      }),
      'exchange',
    ),
  ]);
  return { policy, rollup, statuses, history: history.items };
}

type Loaded = Awaited<ReturnType<typeof loadPolicy>>;

export function PolicyView({ policy: name }: { policy: string }) {
  const { clients, org } = useConsole();
  const load = useCallback(() => loadPolicy(clients, org, name), [clients, org, name]);
  const live = useLive(load, { resources: ['managementPolicy', 'managementStatus'] });
  return (
    <section aria-labelledby="policy-title">
      <p>
        <a href={hrefOf({ view: 'policies' })}>← Management policies</a>
      </p>
      <h1 id="policy-title">Policy {name}</h1>
      {live.error && <ProblemNotice error={live.error} what={`read policy ${name}`} />}
      {!live.data && !live.error && <Loading what={`policy ${name}`} />}
      {live.data && <PolicyDetails loaded={live.data} reload={live.reload} />}
    </section>
  );
}

/**
 * The upgrade and its window as moments: `now` means from when the policy was published, so
 * that the page does not keep promising a window that is long over.
 */
function UpgradeWindow({
  upgrade,
  published,
}: {
  upgrade: NonNullable<Loaded['policy']['agentUpgradePolicy']>;
  published: string;
}) {
  const now = useNow();
  const start = upgrade.start === 'now' ? published : upgrade.start;
  const end = Date.parse(start) + upgrade.duration * 1000;
  return (
    <>
      at least {upgrade.atLeastVersion}, {upgrade.action}, over {upgrade.duration} s from <When at={start} />
      {upgrade.start === 'now' && ' (when it was published)'}
      {end <= now ? '; the window is over.' : '.'}
    </>
  );
}

function PolicyDetails({ loaded, reload }: { loaded: Loaded; reload: () => Promise<void> }) {
  const { identity } = useConsole();
  const { policy, rollup, statuses, history } = loaded;
  const failures = statuses.filter((status) => FAILED.has(status.status));
  const points = rollupOverTime(statuses, history, new Date().toISOString());
  return (
    <>
      <dl className="facts">
        <dt>State</dt>
        <dd>
          <Badge state={policy.state} />
          {policy.disabledReason && <span className="bad-text"> {policy.disabledReason}</span>}
        </dd>
        <dt>Agent version</dt>
        <dd>
          {policy.agentUpgradePolicy ? (
            <UpgradeWindow upgrade={policy.agentUpgradePolicy} published={policy.lastUpdated} />
          ) : (
            'none'
          )}
        </dd>
        <dt>Selects</dt>
        <dd>
          {selectsEveryNode(policy)
            ? 'every node of the org'
            : [
                ...policy.patterns.map((pattern) => `pattern ${pattern}`),
                ...policy.nodes.map((node) => `node ${node}`),
                ...policy.constraints,
              ].join('; ')}
        </dd>
        <dt>Failures counted</dt>
        <dd>
          {rollup.failed}
          {policy.failureThreshold !== null && ` of ${policy.failureThreshold} allowed`}
          {rollup.failuresCountedSince && (
            <>
              {' '}
              since <When at={rollup.failuresCountedSince} />
            </>
          )}
        </dd>
      </dl>
      {mayOperate(identity) && (
        <PolicyActions
          policy={policy}
          failures={failures.length}
          reload={reload}
          configures={isAdmin(identity)}
        />
      )}
      <h2>Rollup</h2>
      <p className="counts" data-rollup>
        <StatusCounts counts={rollup.counts} />
        {rollup.total === 0 && (
          <span className="muted">No node has reported a status for this policy yet.</span>
        )}
      </p>
      {rollup.missingPackage && (
        <div className="notice notice-error" role="alert" data-no-package>
          <Badge state="no-package" /> {rollup.missingPackage}. Waiting without a status:{' '}
          {rollup.noPackage.map((node, index) => (
            <span key={node}>
              {index > 0 && ', '}
              <a href={hrefOf({ view: 'node', node })}>{node}</a>
            </span>
          ))}
          .
        </div>
      )}
      <RollupChart points={points} />
      <h2>Failures</h2>
      {failures.length === 0 ? (
        <Empty>No node has failed this policy.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Status</th>
              <th scope="col">Version</th>
              <th scope="col">Error</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {failures.map((status) => (
              <tr key={status.node}>
                <th scope="row">
                  <a href={hrefOf({ view: 'node', node: status.node })}>{status.node}</a>
                </th>
                <td>
                  <Badge state={status.status} />
                </td>
                <td>{status.version ?? '–'}</td>
                <td className="bad-text">{status.error ?? ''}</td>
                <td>
                  <Ago at={status.updated} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function PolicyActions({
  policy,
  failures,
  reload,
  configures,
}: {
  policy: Loaded['policy'];
  failures: number;
  reload: () => Promise<void>;
  /** An org admin: may enable and disable the policy, not only pause, resume and reset it. */
  configures: boolean;
}) {
  const { clients, org } = useConsole();
  const action = useAction();
  const [asking, setAsking] = useState<'enable' | 'reset'>();
  const [resumeWindow, setResumeWindow] = useState('');
  const path = { org, name: policy.name };

  const setEnabled = async (enabled: boolean, allowDisruptive: boolean) => {
    setAsking(undefined);
    if (
      await action.run(() =>
        read(
          clients.exchange.PUT('/v1/orgs/{org}/management-policies/{name}', {
            params: { path },
            body: replacementBody(policy, enabled, allowDisruptive),
          }),
          'exchange',
        ),
      )
    )
      await reload();
  };
  const enable = () => (selectsEveryNode(policy) ? setAsking('enable') : void setEnabled(true, false));
  const pause = async () => {
    if (
      await action.run(() =>
        read(
          clients.exchange.POST('/v1/orgs/{org}/management-policies/{name}/pause', { params: { path } }),
          'exchange',
        ),
      )
    )
      await reload();
  };
  const resume = async (event: FormEvent) => {
    event.preventDefault();
    const body = resumeWindow.trim() === '' ? {} : { window: typedNumber(resumeWindow) };
    if (
      await action.run(() =>
        read(
          clients.exchange.POST('/v1/orgs/{org}/management-policies/{name}/resume', {
            params: { path },
            body,
          }),
          'exchange',
        ),
      )
    ) {
      setResumeWindow('');
      await reload();
    }
  };
  const resetFailed = async () => {
    setAsking(undefined);
    if (
      await action.run(() =>
        read(
          clients.exchange.POST('/v1/orgs/{org}/management-policies/{name}/reset', {
            params: { path },
            body: { failed: true },
          }),
          'exchange',
        ),
      )
    )
      await reload();
  };

  return (
    <div className="actions-panel">
      <FormProblem problem={action.problem} fields={['window']} />
      <div className="actions">
        {configures && policy.enabled && (
          <button type="button" onClick={() => void setEnabled(false, false)} disabled={action.busy}>
            Disable
          </button>
        )}
        {configures && !policy.enabled && !policy.disabledReason && (
          <button type="button" onClick={enable} disabled={action.busy}>
            Enable
          </button>
        )}
        {policy.state === 'active' && (
          <button type="button" onClick={() => void pause()} disabled={action.busy}>
            Pause
          </button>
        )}
        {failures > 0 && (
          <button type="button" onClick={() => setAsking('reset')} disabled={action.busy}>
            Reset {failures} failed
          </button>
        )}
      </div>
      {/* A paused policy resumes over a window; one the exchange disabled (its failure threshold) is enabled
          again the same way, counting failures from then on. */}
      {(policy.state === 'paused' || (policy.state === 'disabled' && policy.disabledReason)) && (
        <form className="inline-form" onSubmit={(event) => void resume(event)} noValidate>
          <Field
            label="Resume over (seconds)"
            name="window"
            inputMode="numeric"
            value={resumeWindow}
            onChange={(event) => setResumeWindow(event.target.value)}
            hint="empty: what was left of the policy's window"
            refusal={action.problem}
          />
          <button type="submit" disabled={action.busy}>
            {policy.enabled ? 'Resume' : 'Enable again'}
          </button>
        </form>
      )}
      <ConfirmDialog
        open={asking === 'enable'}
        title={`Enable ${policy.name}?`}
        confirmLabel="Enable"
        onConfirm={() => void setEnabled(true, true)}
        onCancel={() => setAsking(undefined)}
      >
        This policy may upgrade every node at about the same time.
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === 'reset'}
        title={`Reset the failed nodes of ${policy.name}?`}
        confirmLabel="Reset"
        onConfirm={() => void resetFailed()}
        onCancel={() => setAsking(undefined)}
      >
        Each of the {failures} nodes enacts the policy again, even at a version that failed there, and a
        halted HA group goes on.
      </ConfirmDialog>
    </div>
  );
}
