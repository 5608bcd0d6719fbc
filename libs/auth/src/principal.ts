/**
 * Who is calling: a user of an org (with one role), a node of an org, or a service account of an
 * org presenting one of its keys (with the key's scopes). Every authorization decision in Careen
 * starts from one of these; nothing here knows how it was authenticated.
 */
import { type Scope } from './scopes';

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
  /** The issuer of the OpenID provider the user signed in through; absent for a password. */
  idp?: string;
}

export interface NodePrincipal {
  kind: 'node';
  org: string;
  node: string;
}

/** An admin tool or pipeline of an org, by one of its service account's keys. */
export interface ServicePrincipal {
  kind: 'service';
  org: string;
  account: string;
  /** The key's id (never its secret): which credential acted, for audit and revocation. */
  key: string;
  scopes: readonly Scope[];
  /**
   * The projects the key is limited to (a VNF manager's): it may call only routes that act on
   * one project, and only for these. Absent: the whole org, as its scopes allow.
   */
  projects?: readonly string[];
}

export type Principal = UserPrincipal | NodePrincipal | ServicePrincipal;

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

/**
 * "org/username", "org/node" or "org/sa:account" (no user or node name holds a colon): the JWT
 * subject and the form used in logs, owners and audit rows.
 */
export function principalId(principal: Principal): string {
  switch (principal.kind) {
    case 'user':
      return `${principal.org}/${principal.username}`;
    case 'node':
      return `${principal.org}/${principal.node}`;
    case 'service':
      return `${principal.org}/sa:${principal.account}`;
  }
}

/** Whether `role` allows what `needed` does: the same role or one listed before it. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) <= ROLES.indexOf(needed);
}

export function isHubAdmin(principal: Principal): boolean {
  return principal.kind === 'user' && principal.role === 'hubAdmin';
}
