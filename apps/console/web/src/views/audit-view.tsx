/**
 * Audit: the org's trail for its admins — who changed what, when, by which credential and from
 * where — over the last hour, day or week, filtered by actor, target or action, newest first;
 * and a check of its hash chain.
 */
import { useCallback, useState, type FormEvent } from 'react';
import { read, type Clients } from '../api/clients';
import { FormProblem } from '../components/form-problem';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { When } from '../components/time';
import { useConsole } from '../live/console-context';
import { useAction } from '../live/use-action';
import { useLive } from '../live/use-live';

const SPANS = { '1 hour': 3_600_000, '1 day': 86_400_000, '7 days': 7 * 86_400_000 } as const;
type Span = keyof typeof SPANS;
/** Most records shown: the newest of the span. */
const SHOWN = 500;

interface Filter {
  span: Span;
  actor: string;
  target: string;
  action: string;
}

async function loadTrail(clients: Clients, org: string, filter: Filter) {
  const query = {
    since: new Date(Date.now() - SPANS[filter.span]).toISOString(),
    ...(filter.actor ? { actor: filter.actor } : {}),
    ...(filter.target ? { target: filter.target } : {}),
    ...(filter.action ? { action: filter.action } : {}),
  };
  const page = await read(
    clients.exchange.GET('/v1/orgs/{org}/audit', {
      params: { path: { org }, query: { ...query, order: 'newest', limit: SHOWN } },
    }),
    'exchange',
  );
  return { items: page.items, total: page.total };
}

export function AuditView() {
  const { clients, org } = useConsole();
  const [filter, setFilter] = useState<Filter>({ span: '1 day', actor: '', target: '', action: '' });
  const [draft, setDraft] = useState(filter);
  const load = useCallback(() => loadTrail(clients, org, filter), [clients, org, filter]);
  const trail = useLive(load, { refreshSeconds: 10 });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilter(draft);
  };
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <p className="muted">
        Every change in org {org}, by whom and how, as the services recorded it with the change. Also:{' '}
        <code>careen audit</code>.
      </p>
      <Verify />
      <form className="inline-form" onSubmit={apply} aria-label="Filter the trail">
        <label>
          Over the last{' '}
          <select
            value={draft.span}
            onChange={(event) => setDraft({ ...draft, span: event.target.value as Span })}
          >
            {Object.keys(SPANS).map((span) => (
              <option key={span}>{span}</option>
            ))}
          </select>
        </label>
        {(['actor', 'target', 'action'] as const).map((field) => (
          <label key={field}>
            {field[0]!.toUpperCase() + field.slice(1)}{' '}
            <input
              name={field}
              value={draft[field]}
              placeholder={
                { actor: 'acme/ada', target: 'managementPolicy/web', action: 'session.abort' }[field]
              }
              onChange={(event) => setDraft({ ...draft, [field]: event.target.value.trim() })}
            />
          </label>
        ))}
        <button type="submit">Show</button>
      </form>
      {trail.error && <ProblemNotice error={trail.error} what="read the audit trail" />}
      {!trail.data && !trail.error && <Loading what="the audit trail" />}
      {trail.data?.items.length === 0 && <Empty>No record in org {org} matches.</Empty>}
      {trail.data && trail.data.items.length > 0 && (
        <>
          {trail.data.total > trail.data.items.length && (
            <p className="muted">
              The newest {trail.data.items.length} of {trail.data.total} records.
            </p>
          )}
          <table data-audit>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">How</th>
                <th scope="col">What</th>
                <th scope="col">On</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {trail.data.items.map((record) => (
                <tr key={record.seq} data-seq={record.seq}>
                  <td>
                    <When at={record.at} />
                  </td>
                  <td>{record.actor}</td>
                  <td className="muted">{record.via ?? '–'}</td>
                  <td>{record.action}</td>
                  <td>{record.target}</td>
                  <td className="muted">{record.source ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function Verify() {
  const { clients, org } = useConsole();
  const action = useAction();
  const [verdict, setVerdict] = useState<string>();
  const [broken, setBroken] = useState(false);
  const verify = async () => {
    setVerdict(undefined);
    await action.run(async () => {
      const answer = await read(
        clients.exchange.GET('/v1/orgs/{org}/audit/verify', { params: { path: { org } } }),
        'exchange',
      );
      setBroken(answer.broken !== null);
      setVerdict(
        answer.broken
          ? `Broken at record ${answer.broken.seq}: ${answer.broken.problem}.`
          : `Verified: ${answer.checked} records chain, from ${answer.anchor.seq + 1} to ${answer.head.seq}.`,
      );
    });
  };
  return (
    <div className="actions-panel">
      <FormProblem problem={action.problem} fields={[]} />
      <div className="actions">
        <button type="button" onClick={() => void verify()} disabled={action.busy}>
          Verify the chain
        </button>
        {verdict && (
          <span role="status" className={broken ? 'bad-text' : undefined} data-verdict>
            {verdict}
          </span>
        )}
      </div>
    </div>
  );
}
