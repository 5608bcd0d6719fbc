/**
 * What an authenticated principal may call, given a route's requirements: nodes only where
 * allowed, users only with the role the route needs or a higher one, and nobody outside their
 * own org except a hub admin. Pure rules, no transport; throws AuthorizationError.
 */
import { AuthErrorCode, AuthorizationError } from './auth.errors';
import { isHubAdmin, principalId, roleAllows, type Principal, type Role } from './principal';

export interface AccessRequirements {
  /** Nodes may call the route (users still need the role). */
  allowNodes?: boolean;
  /** The least role a user needs; absent: any user. */
  role?: Role;
  /** The org the route addresses; the principal must belong to it unless a hub admin. */
  org?: string;
}

export function assertAccess(principal: Principal, requirements: AccessRequirements): void {
  if (principal.kind === 'node' && !requirements.allowNodes) {
    throw new AuthorizationError(AuthErrorCode.Forbidden, 'nodes may not call this route');
  }
  if (requirements.org !== undefined && principal.org !== requirements.org && !isHubAdmin(principal)) {
    throw new AuthorizationError(
      AuthErrorCode.WrongOrg,
      `${principalId(principal)} has no access to org ${requirements.org}`,
    );
  }
  const needed = requirements.role;
  if (principal.kind === 'user' && needed !== undefined && !roleAllows(principal.role, needed)) {
    throw new AuthorizationError(
      AuthErrorCode.Forbidden,
      `role ${principal.role} may not call this route; it needs ${needed} or higher`,
    );
  }
}
