/**
 * Disruption: when and how much of the fleet may be disrupted. A calendar of the org's
 * maintenance windows (their openings over the coming week, the part after each cutoff shaded)
 * and freezes, each with what it covers; then the fleet budgets and the alert gates. The agbot
 * enforces them on every disruption (docs/operations.md, Disruption control).
 */
import { describeSelector } from '@careen/disruption/src/disruption-selector';
import { useCallback } from 'react';
import { read, type Clients } from '../api/clients';
import { Empty, Loading, ProblemNotice } from '../components/notice';
import { useConsole } from '../live/console-context';
import { useLive } from '../live/use-live';
import { useNow } from '../live/use-now';
import { calendarLayout, type CalendarAnswer, type CalendarRow } from '../model/calendar-layout';

const DAYS = 7;

async function loadControls(clients: Clients, org: string) {
  const path = { org };
  // From the start of this hour, so that the calendar does not move with every refresh.
  const from = new Date();
  from.setMinutes(0, 0, 0);
  const [calendar, budgets, gates] = await Promise.all([
    read(
      clients.exchange.GET('/v1/orgs/{org}/disruption-calendar', {
        params: { path, query: { from: from.toISOString(), days: DAYS } },
      }),
      'exchange',
    ),
    read(clients.exchange.GET('/v1/orgs/{org}/budgets', { params: { path } }), 'exchange'),
    read(clients.exchange.GET('/v1/orgs/{org}/gates', { params: { path } }), 'exchange'),
  ]);
  return { calendar: calendar as CalendarAnswer, budgets: budgets.items, gates: gates.items };
}

export function DisruptionView() {
  const { clients, org } = useConsole();
  const now = useNow();
  const load = useCallback(() => loadControls(clients, org), [clients, org]);
  const controls = useLive(load, { resources: ['window', 'freeze', 'budget', 'gate'], refreshSeconds: 60 });
  const layout = controls.data && calendarLayout(controls.data.calendar, new Date(now));
  return (
    <section aria-labelledby="disruption-title">
      <h1 id="disruption-title">Disruption</h1>
      <p className="muted">
        Every disruption — an agent upgrade, a rollout step, a maintenance, a FleetLock reboot — starts only
        inside a window that covers its node, outside every freeze, within its budgets and while its alert
        gates are quiet. Work under way finishes.
      </p>
      {controls.error && <ProblemNotice error={controls.error} what="read the disruption controls" />}
      {!controls.data && !controls.error && <Loading what="the disruption controls" />}
      {layout && (
        <>
          <h2>The next {DAYS} days</h2>
          {layout.rows.length === 0 ? (
            <Empty>
              Org {org} has no maintenance windows or freezes: its nodes may be disrupted at any time. Add
              them with <code>careen window publish</code> and <code>careen freeze publish</code>.
            </Empty>
          ) : (
            <div className="calendar" role="table" aria-label="windows and freezes">
              <div className="calendar-row calendar-head" role="row">
                <div className="calendar-name" role="columnheader">
                  Control
                </div>
                <div className="calendar-track" role="columnheader">
                  {layout.days.map(({ left, day }) => (
                    <span key={day.getTime()} className="calendar-day" style={{ left: `${left}%` }}>
                      {day.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric' })}
                    </span>
                  ))}
                </div>
              </div>
              {layout.rows.map((row) => (
                <CalendarLine key={`${row.kind}:${row.name}`} row={row} now={layout.now} />
              ))}
            </div>
          )}
          <h2>Budgets</h2>
          {controls.data!.budgets.length === 0 ? (
            <Empty>
              No fleet budgets: only each HA group&apos;s maxUnavailable limits how many are down.
            </Empty>
          ) : (
            <table data-budgets>
              <thead>
                <tr>
                  <th scope="col">Budget</th>
                  <th scope="col">At most down</th>
                  <th scope="col">Covers</th>
                </tr>
              </thead>
              <tbody>
                {controls.data!.budgets.map((budget) => (
                  <tr key={budget.name}>
                    <th scope="row">{budget.name}</th>
                    <td>{String(budget.maxUnavailable)}</td>
                    <td>{describeSelector(budget.selector)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>Alert gates</h2>
          {controls.data!.gates.length === 0 ? (
            <Empty>No alert gates.</Empty>
          ) : (
            <table data-gates>
              <thead>
                <tr>
                  <th scope="col">Gate</th>
                  <th scope="col">Alerts</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Soak</th>
                  <th scope="col">Covers</th>
                </tr>
              </thead>
              <tbody>
                {controls.data!.gates.map((gate) => (
                  <tr key={gate.name}>
                    <th scope="row">{gate.name}</th>
                    <td>
                      <code>{gate.matchers.join(', ')}</code>
                    </td>
                    <td>{gate.scope}</td>
                    <td>{gate.soakSeconds ? `${gate.soakSeconds} s` : '–'}</td>
                    <td>{describeSelector(gate.selector)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

function CalendarLine({ row, now }: { row: CalendarRow; now: number | undefined }) {
  return (
    <div className="calendar-row" role="row" data-control={`${row.kind}:${row.name}`}>
      <div className="calendar-name" role="rowheader">
        <strong>{row.name}</strong> <span className="muted">{row.kind}</span>
        <div className="muted">
          {row.covers}
          {row.timeZone && ` · ${row.timeZone}`}
        </div>
      </div>
      <div className="calendar-track" role="cell">
        {row.bars.map((bar) => (
          <span
            key={`${bar.left}:${bar.width}`}
            className={`calendar-bar calendar-${row.kind}`}
            style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
            title={bar.label}
            aria-label={bar.label}
          >
            {bar.afterCutoff > 0 && (
              <span className="calendar-cutoff" style={{ width: `${bar.afterCutoff}%` }} />
            )}
          </span>
        ))}
        {now !== undefined && <span className="calendar-now" style={{ left: `${now}%` }} />}
      </div>
    </div>
  );
}
