/**
 * Which changes a caller may see on an org's feed. Users see their org's changes; a node sees
 * what can concern it: its own node and statuses, its org's policies, services, groups and the
 * org itself — never other nodes or users. Agent packages concern everyone.
 */
import { type Principal } from '@careen/auth';
import { type ChangeResource } from '@careen/contracts';
import { type ChangeRecord, GLOBAL_RESOURCES } from './change-record';

const ORG_WIDE_FOR_NODES: readonly ChangeResource[] = [
  'org',
  'service',
  'deploymentPolicy',
  'haGroup',
  'managementPolicy',
];

export function isVisibleTo(principal: Principal, org: string, change: ChangeRecord): boolean {
  if (GLOBAL_RESOURCES.includes(change.resource)) return true;
  if (change.org !== org) return false;
  if (principal.kind === 'user') return true;
  if (ORG_WIDE_FOR_NODES.includes(change.resource)) return true;
  return (
    (change.resource === 'node' || change.resource === 'managementStatus') &&
    concernsNode(change, principal.node)
  );
}

/** A node's own record, or one of its statuses (`<node>/<nmp>`). */
function concernsNode(change: ChangeRecord, node: string): boolean {
  return change.resourceId === node || change.resourceId.startsWith(`${node}/`);
}
