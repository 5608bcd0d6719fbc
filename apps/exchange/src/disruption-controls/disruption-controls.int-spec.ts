import { startServiceInProcess, type InProcessService } from '@careen/service';
import {
  eventually,
  http,
  ROOT_PASSWORD,
  seededRoot as root,
  seededUser,
  seedExchange,
  useTestInfra,
  type Credentials,
} from '@careen/testing';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';

const admin = seededUser('acme', 'ada');
const bob = seededUser('acme', 'bob');

const weeknights = {
  description: 'weeknights in Amsterdam',
  selector: { labels: { site: 'ams' } },
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '01:00',
  durationMinutes: 240,
  cutoffMinutes: 30,
  timeZone: 'Europe/Amsterdam',
};

describe('Disruption controls', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  const call = (method: string, path: string, body?: unknown, auth: Credentials = admin) =>
    http(exchange.url, method, path, { auth, body });

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, { CAREEN_ROOT_PASSWORD: ROOT_PASSWORD });
    await seedExchange(exchange.url, {
      acme: { users: { ada: 'orgAdmin', bob: 'operator' }, nodes: ['n1', 'n2', 'n3'] },
    });
  });

  it('creates, replaces, reads, lists and removes a window, and records each change', async () => {
    const created = await call('PUT', '/v1/orgs/acme/windows/weeknights', weeknights);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ org: 'acme', name: 'weeknights', ...weeknights });

    const replaced = await call('PUT', '/v1/orgs/acme/windows/weeknights', {
      rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;BYHOUR=2;BYMINUTE=0',
      durationMinutes: 120,
      timeZone: 'America/New_York',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ selector: {}, cutoffMinutes: 0, description: null });
    expect(replaced.body.days).toBeUndefined();

    // A member of the org reads; only an org admin writes.
    expect((await call('GET', '/v1/orgs/acme/windows/weeknights', undefined, bob)).body.timeZone).toBe(
      'America/New_York',
    );
    expect((await call('GET', '/v1/orgs/acme/windows', undefined, bob)).body).toMatchObject({
      total: 1,
      items: [{ name: 'weeknights' }],
    });
    expect((await call('PUT', '/v1/orgs/acme/windows/mine', weeknights, bob)).status).toBe(403);

    expect((await call('DELETE', '/v1/orgs/acme/windows/weeknights')).status).toBe(204);
    const gone = await call('GET', '/v1/orgs/acme/windows/weeknights');
    expect(gone.status).toBe(404);
    expect(gone.body.details.code).toBe('DISRUPTION_CONTROL_NOT_FOUND');
    expect((await call('DELETE', '/v1/orgs/acme/windows/weeknights')).status).toBe(404);

    await eventually(async () => {
      const feed = await http(exchange.url, 'GET', '/v1/orgs/acme/changes?since=0', { auth: root });
      const windows = (feed.body.changes as { resource: string; operation: string }[]).filter(
        (change) => change.resource === 'window',
      );
      expect(windows.map((change) => change.operation)).toEqual(['created', 'updated', 'deleted']);
    });
  });

  it('keeps a freeze in UTC and a budget as a count or a percentage', async () => {
    const freeze = await call('PUT', '/v1/orgs/acme/freezes/year-end', {
      from: '2026-12-20T00:00:00+01:00',
      until: '2027-01-03T00:00:00+01:00',
    });
    expect(freeze.status).toBe(201);
    expect(freeze.body).toMatchObject({
      from: '2026-12-19T23:00:00.000Z',
      until: '2027-01-02T23:00:00.000Z',
    });

    for (const maxUnavailable of ['10%', 3]) {
      const budget = await call('PUT', '/v1/orgs/acme/budgets/ams', {
        selector: { labels: { site: 'ams' }, racks: ['r1'] },
        maxUnavailable,
      });
      expect(budget.body).toMatchObject({
        maxUnavailable,
        selector: { labels: { site: 'ams' }, racks: ['r1'] },
      });
    }
    expect((await call('GET', '/v1/orgs/acme/freezes')).body.total).toBe(1);
    expect((await call('GET', '/v1/orgs/acme/budgets')).body.items[0].maxUnavailable).toBe(3);
  });

  it.each([
    ['windows', { ...weeknights, timeZone: 'Mars/Olympus' }, 'not an IANA time zone'],
    ['windows', { ...weeknights, start: '24:00' }, 'start must be'],
    ['windows', { ...weeknights, days: ['someday'] }, 'days'],
    ['windows', { ...weeknights, rrule: 'FREQ=DAILY' }, 'either days and start, or rrule'],
    ['windows', { durationMinutes: 60, timeZone: 'UTC', rrule: 'FREQ=HOURLY' }, 'at most daily'],
    ['windows', { durationMinutes: 60, timeZone: 'UTC', rrule: 'FREQ=DAILY;BYHOUR=x' }, 'rrule'],
    ['windows', { ...weeknights, cutoffMinutes: 300 }, 'cutoffMinutes'],
    ['windows', { ...weeknights, colour: 'red' }, 'colour'],
    ['windows', { ...weeknights, selector: { labels: { site: 3 } } }, 'labels must be an object of at most'],
    ['windows', { ...weeknights, selector: { nodes: ['Not An Id!'] } }, 'node'],
    [
      'freezes',
      { from: '2027-01-03T00:00:00Z', until: '2026-12-20T00:00:00Z' },
      'until must be later than from',
    ],
    ['freezes', { from: 'tomorrow', until: '2026-12-20T00:00:00Z' }, 'from'],
    [
      'freezes',
      { from: '2026-12-20T00:00:00', until: '2027-01-03T00:00:00Z' },
      'from must end with its offset',
    ],
    ['budgets', { maxUnavailable: 0 }, 'from 1'],
    ['budgets', { maxUnavailable: '0%' }, 'from 1% to 100%'],
    ['budgets', { maxUnavailable: 'half' }, 'from 1% to 100%'],
    ['budgets', {}, 'maxUnavailable'],
    [
      'gates',
      { prometheusUrl: 'ftp://p', matchers: ['alertname="A"'], scope: 'all' },
      'prometheusUrl must be',
    ],
    ['gates', { prometheusUrl: 'http://p:9090', matchers: [], scope: 'all' }, 'at least one'],
    [
      'gates',
      { prometheusUrl: 'http://p:9090', matchers: ['severity=~"("'], scope: 'all' },
      'Invalid regular expression',
    ],
    [
      'gates',
      { prometheusUrl: 'http://p:9090', matchers: ['alertname="A"'], scope: 'rack' },
      'scope must be',
    ],
    [
      'gates',
      { prometheusUrl: 'http://p:9090', matchers: ['alertname="A"'], scope: 'all', onUnavailable: 'maybe' },
      'onUnavailable',
    ],
  ])('refuses a bad %s body %j with 400 naming the problem', async (kind, body, problem) => {
    const response = await call('PUT', `/v1/orgs/acme/${kind}/bad`, body);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain(problem);
  });

  it('keeps an alert gate, closed while Prometheus cannot be asked unless said otherwise', async () => {
    const gate = await call('PUT', '/v1/orgs/acme/gates/node-down', {
      prometheusUrl: 'http://prometheus.monitoring:9090',
      matchers: ['alertname="NodeDown"', 'severity=~"page|critical"'],
      scope: 'label:site',
      selector: { labels: { site: 'ams' } },
    });
    expect(gate.status).toBe(201);
    expect(gate.body).toMatchObject({ onUnavailable: 'closed', evaluationSeconds: 15, scope: 'label:site' });
    expect((await call('GET', '/v1/orgs/acme/gates', undefined, bob)).body.items[0].name).toBe('node-down');
    expect((await call('DELETE', '/v1/orgs/acme/gates/node-down', undefined, bob)).status).toBe(403);
  });

  it("keeps an HA group's maxUnavailable, one member unless set", async () => {
    const formed = await call('POST', '/v1/orgs/acme/hagroups', {
      name: 'line-1',
      members: ['n1', 'n2', 'n3'],
    });
    expect(formed.body.maxUnavailable).toBe(1);
    const replaced = await call('PUT', '/v1/orgs/acme/hagroups/line-1', {
      members: ['n1', 'n2', 'n3'],
      maxUnavailable: '50%',
    });
    expect(replaced.body.maxUnavailable).toBe('50%');
    expect((await call('GET', '/v1/orgs/acme/hagroups/line-1')).body.maxUnavailable).toBe('50%');
    const bad = await call('PUT', '/v1/orgs/acme/hagroups/line-1', { members: ['n1'], maxUnavailable: -1 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('maxUnavailable');
  });

  it("shows a member of the org the week's window openings and freezes, and refuses a bad span", async () => {
    expect((await call('PUT', '/v1/orgs/acme/windows/cal-weeknights', weeknights)).status).toBe(201);
    expect(
      (
        await call('PUT', '/v1/orgs/acme/freezes/cal-freeze', {
          selector: { racks: ['r1'] },
          from: '2026-12-09T00:00:00+01:00',
          until: '2026-12-10T00:00:00+01:00',
        })
      ).status,
    ).toBe(201);

    const week = await call(
      'GET',
      '/v1/orgs/acme/disruption-calendar?from=2026-12-07T00:00:00Z',
      undefined,
      bob,
    );
    expect(week.status).toBe(200);
    expect(week.body).toMatchObject({ from: '2026-12-07T00:00:00.000Z', until: '2026-12-14T00:00:00.000Z' });
    const window = (week.body.windows as { name: string }[]).find((each) => each.name === 'cal-weeknights');
    expect(window).toEqual({
      name: 'cal-weeknights',
      covers: 'site=ams',
      timeZone: 'Europe/Amsterdam',
      // Monday 7 to Friday 11 December, 01:00 in Amsterdam (UTC+1).
      openings: ['07', '08', '09', '10', '11'].map((day) => ({
        start: `2026-12-${day}T00:00:00.000Z`,
        lastStart: `2026-12-${day}T03:30:00.000Z`,
        end: `2026-12-${day}T04:00:00.000Z`,
      })),
    });
    expect(week.body.freezes).toContainEqual({
      name: 'cal-freeze',
      covers: 'rack r1',
      from: '2026-12-08T23:00:00.000Z',
      until: '2026-12-09T23:00:00.000Z',
    });

    const bad = await call('GET', '/v1/orgs/acme/disruption-calendar?from=2026-12-07T00:00:00&days=90');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('from must end with its offset');
    expect(bad.body.message).toContain('days must not be greater than 31');
    expect((await call('GET', '/v1/orgs/nowhere/disruption-calendar', undefined, root)).status).toBe(404);
  });
});
