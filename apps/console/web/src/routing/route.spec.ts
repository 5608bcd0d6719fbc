import { hrefOf, parseRoute, type Route } from './route';

describe('console routes', () => {
  it.each<[string, Route]>([
    ['', { view: 'fleet' }],
    ['#/', { view: 'fleet' }],
    ['#/nodes', { view: 'fleet' }],
    ['#/nodes/edge%2F1', { view: 'node', node: 'edge/1' }],
    ['#/ha-groups', { view: 'ha-groups' }],
    ['#/disruption', { view: 'disruption' }],
    ['#/policies/canary', { view: 'policy', policy: 'canary' }],
    ['#/rollouts/3f1c', { view: 'rollout', rollout: '3f1c' }],
    ['#/maintenance', { view: 'maintenance' }],
    ['#/maintenance/abc', { view: 'maintenance-session', session: 'abc' }],
    ['#/audit', { view: 'audit' }],
    ['#/nowhere', { view: 'fleet' }],
    ['#/nodes/%E0%A4%A', { view: 'node', node: '%E0%A4%A' }],
  ])('reads %s', (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });

  it('writes every route so that it reads back the same', () => {
    const routes: Route[] = [
      { view: 'fleet' },
      { view: 'node', node: 'a b/c' },
      { view: 'ha-groups' },
      { view: 'disruption' },
      { view: 'policies' },
      { view: 'policy', policy: 'p' },
      { view: 'rollouts' },
      { view: 'rollout', rollout: 'r' },
      { view: 'maintenance' },
      { view: 'maintenance-session', session: 's' },
      { view: 'audit' },
    ];
    for (const route of routes) expect(parseRoute(hrefOf(route))).toEqual(route);
  });
});
