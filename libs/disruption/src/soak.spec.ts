import { AlertGate, type AlertScope } from './alert-gate';
import { soakFailure, soakRefusal } from './soak';

const NOW = new Date('2026-12-06T10:00:00Z');
const node = (id: string, haGroup: string | null, site = 'ams') => ({
  id,
  haGroup,
  rack: null,
  labels: { site },
});
const secondsAgo = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);
const gate = (scope: AlertScope, soakSeconds: number | undefined, site?: string) =>
  new AlertGate({
    org: 'acme',
    name: `soak-${scope}`,
    selector: site ? { labels: { site } } : {},
    prometheusUrl: 'http://prometheus:9090',
    matchers: ['alertname="NodeDown"'],
    scope,
    soakSeconds,
  });

describe('soakRefusal', () => {
  it('holds the next member of the group until the soak of the last step ends', () => {
    const steps = [{ node: node('a', 'g1'), endedAt: secondsAgo(20) }];
    expect(soakRefusal([gate('haGroup', 60)], node('b', 'g1'), steps, NOW)).toEqual({
      reason: 'soak',
      control: 'soak-haGroup',
      node: 'a',
      until: new Date(NOW.getTime() + 40_000),
      message: expect.stringContaining('waits 60 s of quiet, until 2026-12-06T10:00:40.000Z'),
    });
    // Another group, a soak that is over, a gate that does not soak: nothing waits.
    expect(soakRefusal([gate('haGroup', 60)], node('c', 'g2'), steps, NOW)).toBeUndefined();
    expect(soakRefusal([gate('haGroup', 15)], node('b', 'g1'), steps, NOW)).toBeUndefined();
    expect(soakRefusal([gate('haGroup', undefined)], node('b', 'g1'), steps, NOW)).toBeUndefined();
  });

  it('takes in what the scope shares, only among the nodes the gate covers, and names the latest end', () => {
    const steps = [
      { node: node('a', 'g1', 'ams'), endedAt: secondsAgo(50) },
      { node: node('d', 'g3', 'ams'), endedAt: secondsAgo(10) },
      { node: node('e', null, 'fra'), endedAt: secondsAgo(5) },
    ];
    expect(soakRefusal([gate('all', 60)], node('x', 'g9', 'ams'), steps, NOW)).toMatchObject({ node: 'e' });
    expect(soakRefusal([gate('label:site', 60)], node('x', 'g9', 'ams'), steps, NOW)).toMatchObject({
      node: 'd',
      until: new Date(NOW.getTime() + 50_000),
    });
    expect(soakRefusal([gate('all', 60, 'ams')], node('x', 'g9', 'ams'), steps, NOW)).toMatchObject({
      node: 'd',
    });
    expect(soakRefusal([gate('all', 60, 'ams')], node('y', 'g9', 'fra'), steps, NOW)).toBeUndefined();
    // A node's own step soaks for it whatever the scope; a node outside any group shares no group.
    expect(soakRefusal([gate('node', 60)], node('e', null, 'fra'), steps, NOW)).toMatchObject({ node: 'e' });
    expect(soakRefusal([gate('haGroup', 60)], node('f', null, 'fra'), steps, NOW)).toBeUndefined();
  });
});

describe('soakFailure', () => {
  const answer = (labels: Record<string, string>) => () => ({ askedAt: NOW, alerts: [{ labels }] });

  it('fails a soaking step when an alert of the gate fires for its node', () => {
    const step = { node: node('a', 'g1'), endedAt: secondsAgo(20) };
    expect(soakFailure([gate('node', 60)], step, answer({ alertname: 'NodeDown', node: 'a' }), NOW)).toBe(
      'alert "NodeDown" firing for node=a during the 60 s soak of gate "soak-node" after the step',
    );
    expect(
      soakFailure([gate('node', 60)], step, answer({ alertname: 'NodeDown', node: 'b' }), NOW),
    ).toBeUndefined();
    expect(
      soakFailure([gate('node', 60)], step, answer({ alertname: 'DiskFull', node: 'a' }), NOW),
    ).toBeUndefined();
  });

  it('leaves a step whose soak is over, and one Prometheus cannot be asked about', () => {
    const fired = answer({ alertname: 'NodeDown', node: 'a' });
    expect(
      soakFailure([gate('node', 10)], { node: node('a', 'g1'), endedAt: secondsAgo(20) }, fired, NOW),
    ).toBeUndefined();
    expect(
      soakFailure(
        [gate('node', 60)],
        { node: node('a', 'g1'), endedAt: secondsAgo(20) },
        () => ({ askedAt: NOW, error: 'ECONNREFUSED' }),
        NOW,
      ),
    ).toBeUndefined();
  });
});
