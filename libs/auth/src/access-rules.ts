/**
 * What an authenticated principal may call, given a route's requirements: nodes only where
 * allowed, users only with the role the route needs or a higher one, service accounts only with
 * a scope of the route's resource, and nobody outside their own org except a hub admin. Pure
 * rules, no transport; throws AuthorizationError.
 */
import { AuthErrorCode, AuthorizationError } from './auth.errors';
import {
  isHubAdmin,
  principalId,
  roleAllows,
  type Principal,
  type Role,
  type ServicePrincipal,
} from './principal';
import { ANY_KEY, scopesAllow, type RouteResource } from './scopes';

export interface AccessRequirements {
  /** Nodes may call the route (users still need the role). */
  allowNodes?: boolean;
  /** The least role a user needs; absent: any user. */
  role?: Role;
  /** What a service account's key needs a scope of (any key for `*`); absent: keys may not call the route. */
  resource?: RouteResource;
  /** The org the route addresses; the principal must belong to it unless a hub admin. */
  org?: string;
  /** The route acts on one project (it checks which with assertProject): project-limited keys may call it. */
  projectScoped?: boolean;
}

export function assertAccess(principal: Principal, requirements: AccessRequirements): void {
  assertInOrg(principal, requirements);
  if (principal.kind === 'service') {
    assertScope(principal, requirements);
    return;
  }
  const needed = requirements.role;
  if (principal.kind === 'user' && needed !== undefined && !roleAllows(principal.role, needed)) {
    throw new AuthorizationError(
      AuthErrorCode.Forbidden,
      `role ${principal.role} may not call this route; it needs ${needed} or higher`,
    );
  }
}

/**
 * The part of the rules that is not about roles and scopes: a node only where nodes are allowed,
 * and nobody outside the org but a hub admin. For a route that learns its org from the body or
 * a record, once the guard has judged the rest.
 */
export function assertInOrg(
  principal: Principal,
  { allowNodes, org }: Pick<AccessRequirements, 'allowNodes' | 'org'>,
): void {
  if (principal.kind === 'node' && !allowNodes) {
    throw new AuthorizationError(AuthErrorCode.Forbidden, 'nodes may not call this route');
  }
  if (org !== undefined && principal.org !== org && !isHubAdmin(principal)) {
    throw new AuthorizationError(
      AuthErrorCode.WrongOrg,
      `${principalId(principal)} has no access to org ${org}`,
    );
  }
}

/**
 * Whether `principal` may act on `project`: a key limited to projects only on those. Routes that
 * act on one project call it once they know which (from the body, or the record addressed).
 */
export function assertProject(principal: Principal, project: string): void {
  if (principal.kind !== 'service' || principal.projects === undefined) return;
  if (!principal.projects.includes(project))
    throw new AuthorizationError(
      AuthErrorCode.Forbidden,
      `key ${principal.key} of ${principalId(principal)} is limited to project(s) ${principal.projects.join(', ')}, not ${project}`,
    );
}

/** A key may call a route of its org's resource it holds a scope of: read for reads, write for the rest. */
function assertScope(
  principal: ServicePrincipal,
  { resource, role, projectScoped }: AccessRequirements,
): void {
  if (resource === undefined || role === 'hubAdmin')
    throw new AuthorizationError(AuthErrorCode.Forbidden, 'service accounts may not call this route');
  if (resource === ANY_KEY) return;
  if (principal.projects !== undefined && !projectScoped)
    throw new AuthorizationError(
      AuthErrorCode.Forbidden,
      `key ${principal.key} of ${principalId(principal)} is limited to project(s) ${principal.projects.join(', ')}; this route acts beyond one project`,
    );
  const access = role === undefined || role === 'viewer' ? 'read' : 'write';
  if (!scopesAllow(principal.scopes, resource, access))
    throw new AuthorizationError(
      AuthErrorCode.Forbidden,
      `key ${principal.key} of ${principalId(principal)} lacks the scope ${resource}:${access}`,
    );
}
