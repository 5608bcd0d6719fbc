/**
 * Who is calling: a user of an org (with one role) or a node of an org. Every authorization
 * decision in Careen starts from one of these; nothing here knows how it was authenticated.
 */

/**
 * A user's roles, each allowed all that the ones after it are: a viewer reads the org; an
 * operator also runs it (sessions, rollouts, upgrades, pauses, resets, its own nodes); an org
 * admin also configures it and manages its users; a hub admin does all of that in every org.
 */
export const ROLES = ['hubAdmin', 'orgAdmin', 'operator', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface UserPrincipal {
  kind: 'user';
  org: string;
  username: string;
  role: Role;
}

export interface NodePrincipal {
  kind: 'node';
  org: string;
  node: string;
}

export type Principal = UserPrincipal | NodePrincipal;

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/**
 * The role a stored row or a token names: `user`, the operator's name before roles were split,
 * still read as `operator`, so that rows and tokens written by the previous release keep working
 * through an upgrade and after a rollback. Undefined for anything else.
 */
export function roleNamed(value: unknown): Role | undefined {
  if (value === 'user') return 'operator';
  return isRole(value) ? value : undefined;
}

/** "org/username" or "org/node": the JWT subject and the form used in logs and audit rows. */
export function principalId(principal: Principal): string {
  switch (principal.kind) {
    case 'user':
      return `${principal.org}/${principal.username}`;
    case 'node':
      return `${principal.org}/${principal.node}`;
  }
}

/** Whether `role` allows what `needed` does: the same role or one listed before it. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) <= ROLES.indexOf(needed);
}

export function isHubAdmin(principal: Principal): boolean {
  return principal.kind === 'user' && principal.role === 'hubAdmin';
}
