import { AlertGate, alertGateProblem } from './alert-gate';
import { matchesAll, parseMatcher, type AlertMatcher } from './alert-matchers';

const node = (id: string, haGroup: string | null, site: string) => ({
  id,
  haGroup,
  rack: null,
  labels: { site },
});
const NOW = new Date('2026-12-06T10:00:00Z');
const asked = (alerts: Record<string, string>[], secondsAgo = 1) => ({
  askedAt: new Date(NOW.getTime() - secondsAgo * 1000),
  alerts: alerts.map((labels) => ({ labels })),
});
const gate = (overrides: Partial<ConstructorParameters<typeof AlertGate>[0]> = {}) =>
  new AlertGate({
    org: 'acme',
    name: 'node-down',
    selector: {},
    prometheusUrl: 'http://prometheus:9090',
    matchers: ['alertname="NodeDown"', 'severity=~"page|critical"'],
    scope: 'node',
    ...overrides,
  });

describe('alert matchers', () => {
  it('match as Prometheus does: anchored expressions, a missing label as empty', () => {
    const matchers = ['alertname=NodeDown', 'severity=~"page|crit.*"', 'team!="dev"', 'env!~"lab.*"'].map(
      (text) => parseMatcher(text) as AlertMatcher,
    );
    expect(matchesAll(matchers, { alertname: 'NodeDown', severity: 'critical' })).toBe(true);
    expect(matchesAll(matchers, { alertname: 'NodeDown', severity: 'paged' })).toBe(false);
    expect(matchesAll(matchers, { alertname: 'NodeDown', severity: 'page', team: 'dev' })).toBe(false);
    expect(matchesAll(matchers, { alertname: 'NodeDown', severity: 'page', env: 'lab-2' })).toBe(false);
    expect(matchesAll([parseMatcher('team=""') as AlertMatcher], {})).toBe(true);
  });

  it.each([
    ['alertname', 'not a label matcher'],
    ['1abc="x"', 'not a label matcher'],
    ['severity=~"("', 'Invalid regular expression'],
  ])('names what is wrong with %s', (text, problem) => {
    expect(parseMatcher(text)).toEqual({ problem: expect.stringContaining(problem) });
  });
});

describe('AlertGate', () => {
  it('closes only for the node the firing alert names, and for all when it names none', () => {
    const answer = asked([{ alertname: 'NodeDown', severity: 'page', node: 'edge-1' }]);
    expect(gate().check(node('edge-1', 'g1', 'ams'), answer, NOW)).toEqual({
      reason: 'gate',
      control: 'node-down',
      message: 'alert "NodeDown" firing for severity=page, node=edge-1 (gate "node-down")',
    });
    expect(gate().check(node('edge-2', 'g1', 'ams'), answer, NOW)).toBeUndefined();
    expect(
      gate().check(node('edge-2', 'g1', 'ams'), asked([{ alertname: 'NodeDown', severity: 'page' }]), NOW),
    ).toMatchObject({ reason: 'gate' });
    expect(
      gate().check(
        node('edge-1', 'g1', 'ams'),
        asked([{ alertname: 'NodeDown', severity: 'info', node: 'edge-1' }]),
        NOW,
      ),
    ).toBeUndefined();
  });

  it('scopes by HA group or by a node label', () => {
    const answer = asked([{ alertname: 'NodeDown', severity: 'page', ha_group: 'g1', region: 'ams' }]);
    expect(gate({ scope: 'haGroup' }).check(node('edge-1', 'g1', 'fra'), answer, NOW)).toMatchObject({
      reason: 'gate',
    });
    expect(gate({ scope: 'haGroup' }).check(node('edge-2', 'g2', 'ams'), answer, NOW)).toBeUndefined();
    const bySite = gate({ scope: 'label:site', alertLabel: 'region' });
    expect(bySite.check(node('edge-2', 'g2', 'ams'), answer, NOW)).toMatchObject({ reason: 'gate' });
    expect(bySite.check(node('edge-1', 'g1', 'fra'), answer, NOW)).toBeUndefined();
  });

  it('is closed while Prometheus cannot be asked, unless configured open', () => {
    const failed = { askedAt: NOW, error: 'connect ECONNREFUSED' };
    expect(gate().check(node('edge-1', null, 'ams'), failed, NOW)?.message).toBe(
      'gate "node-down" is closed: Prometheus at http://prometheus:9090 cannot be asked (connect ECONNREFUSED)',
    );
    expect(gate().check(node('edge-1', null, 'ams'), undefined, NOW)?.message).toContain('not asked yet');
    // An answer older than three evaluations (15 s each) and a margin is no answer.
    expect(gate().check(node('edge-1', null, 'ams'), asked([], 51), NOW)?.message).toContain(
      'no answer since',
    );
    expect(gate().check(node('edge-1', null, 'ams'), asked([], 49), NOW)).toBeUndefined();
    expect(gate({ onUnavailable: 'open' }).check(node('edge-1', null, 'ams'), failed, NOW)).toBeUndefined();
  });

  it.each([
    [{ matchers: [] }, 'at least one'],
    [{ matchers: ['alertname'] }, 'not a label matcher'],
    [{ scope: 'rack' }, 'scope must be'],
  ])('refuses settings %j', (overrides, problem) => {
    expect(
      alertGateProblem({
        prometheusUrl: 'http://p',
        matchers: ['a="b"'],
        scope: 'all',
        ...overrides,
      } as never),
    ).toContain(problem);
  });
});
