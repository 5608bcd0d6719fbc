/**
 * Which changes a caller may see on an org's feed. Users and service accounts (with a
 * `changes` scope) see their org's changes; a node sees
 * what can concern it: its own node and management statuses, its org's policies, services, groups and the
 * org itself — never other nodes or users. Agent packages concern everyone.
 */
import { type Principal } from '@careen/auth';
import { type ChangeResource } from '@careen/contracts';
import { type ChangeRecord, GLOBAL_RESOURCES } from './change-record';

export const ORG_WIDE_FOR_NODES: readonly ChangeResource[] = [
  'org',
  'service',
  'deploymentPolicy',
  'haGroup',
  'managementPolicy',
];

/** The changes that carry a node's id: a node sees these of its own only. */
export const NODE_OWN_RESOURCES: readonly ChangeResource[] = ['node', 'managementStatus'];

export function isVisibleTo(principal: Principal, org: string, change: ChangeRecord): boolean {
  if (GLOBAL_RESOURCES.includes(change.resource)) return true;
  if (change.org !== org) return false;
  if (principal.kind !== 'node') return true;
  if (ORG_WIDE_FOR_NODES.includes(change.resource)) return true;
  // Node and management-status changes carry the node's id: a node sees only its own.
  return NODE_OWN_RESOURCES.includes(change.resource) && change.resourceId === principal.node;
}

/**
 * The one place in a node's view a change belongs to, if any: its own (node and management
 * status changes), its org's (what concerns every node of the org), or everyone's (agent
 * packages). What a node sees is exactly the union of its `nodeScopes`.
 */
export function nodeScopeOf(change: ChangeRecord): string | undefined {
  if (GLOBAL_RESOURCES.includes(change.resource)) return 'global';
  if (ORG_WIDE_FOR_NODES.includes(change.resource)) return `org:${change.org}`;
  if (NODE_OWN_RESOURCES.includes(change.resource)) return `node:${change.org}/${change.resourceId}`;
  return undefined;
}

export function nodeScopes(org: string, node: string): string[] {
  return ['global', `org:${org}`, `node:${org}/${node}`];
}
