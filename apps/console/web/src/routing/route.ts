/**
 * The console's places, kept in the URL's fragment (`#/nodes/edge-1`) so that a link or a
 * reload opens the same view, and no path of the app can collide with the services' API
 * prefixes under the same origin.
 */
export type Route =
  | { view: 'fleet' }
  | { view: 'node'; node: string }
  | { view: 'ha-groups' }
  | { view: 'disruption' }
  | { view: 'policies' }
  | { view: 'policy'; policy: string }
  | { view: 'rollouts' }
  | { view: 'rollout'; rollout: string }
  | { view: 'maintenance' }
  | { view: 'maintenance-session'; session: string }
  | { view: 'audit' };

export function parseRoute(hash: string): Route {
  const [first = '', second] = hash
    .replace(/^#\/?/, '')
    .split('/')
    .map((part) => safeDecode(part));
  switch (first) {
    case 'nodes':
      return second ? { view: 'node', node: second } : { view: 'fleet' };
    case 'ha-groups':
      return { view: 'ha-groups' };
    case 'disruption':
      return { view: 'disruption' };
    case 'policies':
      return second ? { view: 'policy', policy: second } : { view: 'policies' };
    case 'rollouts':
      return second ? { view: 'rollout', rollout: second } : { view: 'rollouts' };
    case 'maintenance':
      return second ? { view: 'maintenance-session', session: second } : { view: 'maintenance' };
    case 'audit':
      return { view: 'audit' };
    default:
      return { view: 'fleet' };
  }
}

export function hrefOf(route: Route): string {
  switch (route.view) {
    case 'fleet':
      return '#/nodes';
    case 'node':
      return `#/nodes/${encodeURIComponent(route.node)}`;
    case 'ha-groups':
      return '#/ha-groups';
    case 'disruption':
      return '#/disruption';
    case 'policies':
      return '#/policies';
    case 'policy':
      return `#/policies/${encodeURIComponent(route.policy)}`;
    case 'rollouts':
      return '#/rollouts';
    case 'rollout':
      return `#/rollouts/${encodeURIComponent(route.rollout)}`;
    case 'maintenance':
      return '#/maintenance';
    case 'maintenance-session':
      return `#/maintenance/${encodeURIComponent(route.session)}`;
    case 'audit':
      return '#/audit';
  }
}

function safeDecode(part: string | undefined): string {
  if (!part) return '';
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
